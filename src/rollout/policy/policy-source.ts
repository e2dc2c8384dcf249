import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLimiter, type Limiter } from "../../concurrency/limiter.ts";
import { DEFAULTS } from "../../config/defaults.ts";
import type { Rollout } from "../../contracts/rollout.ts";
import { ConfigError } from "../../errors.ts";
import type { ChatModel } from "../../llm/chat-model.ts";
import { toOpenAIMessages } from "../../llm/openai-chat-model.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import type { RolloutRequest, RolloutSource } from "../types.ts";
import { runAgentLoop } from "./agent-loop.ts";
import { type Baseline, createBaseline } from "./baseline.ts";
import { POLICY_DEFAULTS } from "./defaults.ts";
import { PolicyServerError } from "./policy-server-error.ts";
import { systemPrompt, userPrompt } from "./prompt.ts";
import { RolloutWorkspaces } from "./rollout-workspace.ts";
import { createToolExecutor } from "./tool-executor.ts";
import { POLICY_TOOLS } from "./tool-specs.ts";
import { storedTurnTokens } from "./turn-tokens.ts";
import { diffWorkspace } from "./workspace-diff.ts";

export interface PolicySourceOptions {
  /** The policy being trained, behind an OpenAI-compatible server (or a scripted model in tests). */
  model: ChatModel;
  /** Where every tool call and the final diff run. */
  sandbox: SandboxBackend;
  /** Model calls per rollout. */
  maxTurns?: number;
  /** Completion tokens per model call. */
  maxTokens?: number;
  /** Seconds per model call, retries included. */
  timeoutSec?: number;
  temperature?: number;
  /** Rollouts in flight at once, across every group this source generates. */
  concurrency?: number;
  /** Seconds one shell command may run. */
  commandTimeoutSec?: number;
  /** Bytes of one tool result shown to the model; longer ones are cut in the middle with a note. */
  toolOutputCapBytes?: number;
  /** Bytes of the final patch kept (a larger diff becomes an empty patch with `patchError`). */
  maxPatchBytes?: number;
  /** Wall-clock seconds of one rollout; past it the rollout ends with `time_limit` and the patch so far. */
  rolloutTimeoutSec?: number;
  /** Bytes of one rollout's workspace tmpfs; a rollout that fills it ends with `workspace_full`. */
  workspaceBytes?: number;
  /** Files and directories a rollout may create beyond the repository's own. */
  workspaceInodes?: number;
  /** Where scratch workspaces are made (and deleted); default the OS temp directory. */
  scratchDir?: string;
  /** Ask the server for logprobs and token ids and store them per assistant turn (`turnTokens`). */
  logprobs?: boolean;
  /** Where notices go (workspaces that cannot be size-limited on this host); default stderr. */
  warn?: (message: string) => void;
  _internal?: {
    /** Clock for `wallMs`. */
    now?: () => number;
    /** Id of the index-th rollout of a group; must be unique within the group. */
    rolloutId?: (groupId: string, index: number) => string;
  };
}

/**
 * Live rollouts: n runs of a tool-using code agent on the policy server, each in its own sandboxed
 * copy of the task repository, each ending with the workspace's diff as its patch.
 *
 * Trust boundary: the policy is an adversary (RL finds every hack), so after the baseline commit is
 * made (on the host, before anything untrusted runs) the workspace is touched only from inside the
 * sandbox — shell commands, file tools and the final `git diff` alike. The host only copies the
 * baseline in and deletes the workspace at the end (Node's rm, which never follows links).
 */
export class PolicySource implements RolloutSource {
  readonly name = "policy";
  private readonly limit: Limiter;
  private readonly settings: Required<Omit<PolicySourceOptions, "model" | "sandbox" | "warn" | "_internal">>;
  private readonly workspaces: RolloutWorkspaces;
  private readonly now: () => number;
  private readonly rolloutId: (groupId: string, index: number) => string;

  constructor(private readonly options: PolicySourceOptions) {
    this.settings = {
      maxTurns: positiveInteger("maxTurns", options.maxTurns ?? DEFAULTS.policy.maxTurns),
      maxTokens: positiveInteger("maxTokens", options.maxTokens ?? DEFAULTS.policy.maxTokens),
      timeoutSec: positive("timeoutSec", options.timeoutSec ?? DEFAULTS.policy.timeoutSec),
      temperature: nonNegative("temperature", options.temperature ?? DEFAULTS.policy.temperature),
      concurrency: positiveInteger("concurrency", options.concurrency ?? DEFAULTS.policy.concurrency),
      commandTimeoutSec: positive(
        "commandTimeoutSec",
        options.commandTimeoutSec ?? DEFAULTS.policy.commandTimeoutSec,
      ),
      toolOutputCapBytes: positiveInteger(
        "toolOutputCapBytes",
        options.toolOutputCapBytes ?? POLICY_DEFAULTS.toolOutputCapBytes,
      ),
      maxPatchBytes: positiveInteger("maxPatchBytes", options.maxPatchBytes ?? POLICY_DEFAULTS.maxPatchBytes),
      rolloutTimeoutSec: positive(
        "rolloutTimeoutSec",
        options.rolloutTimeoutSec ?? DEFAULTS.policy.rolloutTimeoutSec,
      ),
      workspaceBytes: positiveInteger(
        "workspaceBytes",
        options.workspaceBytes ?? DEFAULTS.policy.workspaceBytes,
      ),
      workspaceInodes: positiveInteger(
        "workspaceInodes",
        options.workspaceInodes ?? DEFAULTS.policy.workspaceInodes,
      ),
      scratchDir: options.scratchDir ?? tmpdir(),
      logprobs: options.logprobs ?? DEFAULTS.policy.logprobs,
    };
    this.workspaces = new RolloutWorkspaces(
      { bytes: this.settings.workspaceBytes, inodes: this.settings.workspaceInodes },
      options.warn ?? ((message) => process.stderr.write(`${message}\n`)),
    );
    this.limit = createLimiter(this.settings.concurrency);
    this.now = options._internal?.now ?? Date.now;
    this.rolloutId = options._internal?.rolloutId ?? ((groupId, index) => `${groupId}/p${index}`);
  }

  /**
   * The group's n rollouts, in index order. If any rollout fails with an infrastructure error (the
   * model server or the sandbox), the others are stopped and the error is thrown: no partial group.
   */
  async generate(request: RolloutRequest): Promise<Rollout[]> {
    if (!Number.isSafeInteger(request.count) || request.count < 1) {
      throw new ConfigError(`a policy rollout request needs count >= 1, got ${request.count}`);
    }
    const scratch = await mkdtemp(join(this.settings.scratchDir, "gagar-policy-"));
    const abort = new AbortController();
    try {
      const baseline = await createBaseline(request.repoDir, join(scratch, "baseline"));
      // Files and directories of the baseline (the workspace's own inodes), counted once per group.
      const baselineEntries = (await readdir(baseline.dir, { recursive: true })).length + 1;
      const settled = await Promise.allSettled(
        Array.from({ length: request.count }, (_, index) =>
          this.limit(() =>
            // Abort inside the slot, so that a queued rollout taking the slot over sees it at once.
            this.rollout(request, index, baseline, baselineEntries, scratch, abort.signal).catch(
              (error: unknown) => {
                abort.abort(error);
                throw error;
              },
            ),
          ),
        ),
      );
      // The first failure is the cause; later ones may just be rollouts it stopped.
      if (abort.signal.aborted) throw abort.signal.reason;
      return settled.map((s) => (s as PromiseFulfilledResult<Rollout>).value);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async rollout(
    request: RolloutRequest,
    index: number,
    baseline: Baseline,
    baselineEntries: number,
    scratch: string,
    signal: AbortSignal,
  ): Promise<Rollout> {
    signal.throwIfAborted();
    const id = this.rolloutId(request.groupId, index);
    const controlDir = join(scratch, `p${index}.control`);
    const { settings } = this;
    const started = this.now();
    const workspace = await this.workspaces.create(join(scratch, `p${index}`), baseline, baselineEntries);
    try {
      await mkdir(controlDir, { mode: 0o700 });
      const execute = createToolExecutor({
        sandbox: this.options.sandbox,
        workspace: workspace.dir,
        controlDir,
        commandTimeoutMs: settings.commandTimeoutSec * 1000,
        commandOutputCapBytes: POLICY_DEFAULTS.commandOutputCapBytes,
        fileToolTimeoutMs: POLICY_DEFAULTS.fileToolTimeoutSec * 1000,
        fileReadLimitBytes: POLICY_DEFAULTS.fileReadLimitBytes,
        toolOutputCapBytes: settings.toolOutputCapBytes,
      });
      const session = await runAgentLoop({
        model: this.options.model,
        messages: [
          { role: "system", content: systemPrompt(settings.commandTimeoutSec) },
          { role: "user", content: userPrompt(request.statement) },
        ],
        tools: POLICY_TOOLS,
        execute,
        maxTurns: settings.maxTurns,
        maxOutputTokens: settings.maxTokens,
        temperature: settings.temperature,
        timeoutMs: settings.timeoutSec * 1000,
        wallClockMs: settings.rolloutTimeoutSec * 1000,
        logprobs: settings.logprobs,
        workspaceFull: workspace.full,
        signal,
      }).catch((error) => {
        throw PolicyServerError.wrap(error, this.options.model.modelId, id);
      });
      signal.throwIfAborted();
      const diff = await diffWorkspace({
        sandbox: this.options.sandbox,
        workspace: workspace.dir,
        baseline,
        timeoutMs: POLICY_DEFAULTS.patchTimeoutSec * 1000,
        maxPatchBytes: settings.maxPatchBytes,
      });
      const last = session.lastUsage;
      return {
        id,
        taskId: request.taskId,
        groupId: request.groupId,
        patch: diff.patch,
        trajectory: {
          turns: session.turns,
          tokens: last ? last.promptTokens + last.completionTokens : 0,
          finishReason: session.finishReason,
          toolCalls: session.toolCalls,
          usage: session.usage,
          wallMs: this.now() - started,
          model: this.options.model.modelId,
          ...(diff.error ? { patchError: diff.error } : {}),
          messages: toOpenAIMessages(session.messages),
          ...(session.tokens.length ? { turnTokens: storedTurnTokens(session.tokens) } : {}),
        },
      };
    } finally {
      await workspace.close();
      await rm(controlDir, { recursive: true, force: true });
    }
  }
}

function positive(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`policy option ${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(`policy option ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(`policy option ${name} must be a number >= 0, got ${String(value)}`);
  }
  return value;
}
