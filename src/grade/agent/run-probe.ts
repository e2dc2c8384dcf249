import { posix } from "node:path";
import { DEFAULTS } from "../../config/defaults.ts";
import { readProbeChannel } from "../../probe/channel.ts";
import type { PlanRunner } from "../../probe/group-probes.ts";
import { SANDBOX_CHANNEL } from "../../probe/group-probes.ts";
import { probeRunEnv } from "../../probe/run-env.ts";
import { planSnippet, SnippetError, type SnippetResult, snippetResult } from "../../probe/snippet.ts";
import type { TaskPack } from "../../verify/pack/task-pack.ts";
import { REFERENCE_SUBJECT } from "./protocol.ts";
import { shown, type ToolContext } from "./tool-context.ts";
import { ToolError } from "./tool-error.ts";

/**
 * run_probe (grader protocol v2): the model's code run in the sandbox against chosen candidates and
 * the reference, the way the behavioural probes run (src/probe/snippet.ts, Verifier.runPlan): the
 * task's environment and limits, the observations back through the trusted runner's second channel.
 */

/** What run_probe needs: the group's task pack and what runs a plan on a patch in its sandbox. */
export interface ProbeSandbox {
  pack: TaskPack;
  runner: PlanRunner;
  /** Wall time of one subject's run, and of all run_probe calls of one pass, in seconds. */
  callSec?: number;
  passSec?: number;
}

export const RUN_PROBE_DEFAULTS = {
  callSec: DEFAULTS.probes.runProbeCallSec,
  passSec: DEFAULTS.probes.runProbePassSec,
};
/** Characters kept of one recorded value in the result. */
const MAX_VALUE_CHARS = 400;
const MIN_RUN_SEC = 1;

/** One pass's use of the sandbox: its budget is shared by every run_probe call of the pass. */
export interface ProbeSession {
  sandbox: ProbeSandbox;
  spentMs: number;
}

export function probeSession(sandbox: ProbeSandbox | undefined): ProbeSession | undefined {
  return sandbox && { sandbox, spentMs: 0 };
}

export async function runProbe(
  ctx: ToolContext,
  args: { code: string; candidates?: string[] },
): Promise<string> {
  const session = ctx.probe;
  if (!session) throw new ToolError("run_probe is not available for this group (its task pack is not known)");
  const { pack, runner } = session.sandbox;
  const subjects = subjectsOf(ctx, pack, args.candidates);
  const dir = snippetDir(pack);
  let plan: Awaited<ReturnType<typeof planSnippet>>;
  try {
    plan = await planSnippet(pack.runner.name, dir, args.code);
  } catch (e) {
    if (e instanceof SnippetError) throw new ToolError(e.message);
    throw e;
  }
  const planned = pack.runner.plan({ command: pack.command, testFiles: plan.probe.testFiles });
  const tests = { ...planned, files: [...planned.files, ...plan.probe.files] };
  const callSec = session.sandbox.callSec ?? RUN_PROBE_DEFAULTS.callSec;
  const passMs = (session.sandbox.passSec ?? RUN_PROBE_DEFAULTS.passSec) * 1000;
  const lines = [
    `ran as the test ${plan.path} (${pack.runner.name}); value: the last expression's; a<n>: the n-th assertion's operands (v, expected) and whether it holds; end: ok, or the exception raised`,
  ];
  for (const subject of subjects) {
    const left = passMs - session.spentMs;
    if (left < MIN_RUN_SEC * 1000) {
      lines.push(`${subject.name}: not run: this pass's run_probe time (${passMs / 1000} s) is spent`);
      continue;
    }
    const timeoutSec = Math.max(
      MIN_RUN_SEC,
      Math.min(callSec, pack.spec.timeoutSec, Math.floor(left / 1000)),
    );
    const started = performance.now();
    const run = await runner
      .runPlan(pack, subject.patch, tests, {
        channelEnv: probeRunEnv(pack.spec.test.env, SANDBOX_CHANNEL),
        timeoutSec,
      })
      .finally(() => {
        session.spentMs += performance.now() - started;
      });
    if (!run) lines.push(`${subject.name}: not run: the patch was refused by the gate`);
    else if (run.timedOut) lines.push(`${subject.name}: cut short at ${timeoutSec} s`);
    else if (!run.completed) lines.push(`${subject.name}: the run did not finish`);
    else
      lines.push(
        `${subject.name}: ${describe(snippetResult(plan, readProbeChannel(run.channels.join("\n"))))}`,
      );
  }
  return lines.join("\n");
}

function subjectsOf(
  ctx: ToolContext,
  pack: TaskPack,
  names: string[] | undefined,
): { name: string; patch: string }[] {
  const wanted = names ?? [...ctx.labels, ...(pack.referencePatch === undefined ? [] : [REFERENCE_SUBJECT])];
  const out: { name: string; patch: string }[] = [];
  for (const name of wanted) {
    if (name.trim().toLowerCase() === REFERENCE_SUBJECT) {
      if (pack.referencePatch === undefined) throw new ToolError("this task has no reference fix to run");
      if (!out.some((s) => s.name === REFERENCE_SUBJECT))
        out.push({ name: REFERENCE_SUBJECT, patch: pack.referencePatch });
      continue;
    }
    const c = shown(ctx, name);
    if (!out.some((s) => s.name === c.label)) out.push({ name: c.label, patch: c.candidate.patch });
  }
  return out;
}

/** The directory of the task's first hidden test module: the task's imports and settings apply there. */
function snippetDir(pack: TaskPack): string {
  const first = pack.hiddenTests.filter((f) => pack.runner.isTestFile(f)).sort()[0];
  return first ? posix.dirname(first) : ".";
}

function describe(result: SnippetResult): string {
  const parts = result.observations.map(
    (o) =>
      `${o.slot.replace(/#0$/, "")} v=${clip(o.value)}${o.expected === undefined ? "" : ` expected=${clip(o.expected)}`}${o.held === null ? "" : ` holds=${o.held}`}`,
  );
  if ("value" in result) parts.unshift(`value=${clip(result.value)}`);
  parts.push(`end=${result.end === undefined ? "(no record: the code did not run)" : clip(result.end)}`);
  return parts.join("; ");
}

function clip(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length <= MAX_VALUE_CHARS ? text : `${text.slice(0, MAX_VALUE_CHARS)}…(${text.length} chars)`;
}
