import type { Finding } from "../../contracts/finding.ts";
import type { Group } from "../../contracts/group.ts";
import { filePath } from "../../diff/parse.ts";
import { countLines, statusLetter } from "./inspect-files.ts";
import { PROTOCOL_VERSION } from "./protocol.ts";
import type { ToolContext } from "./tool-context.ts";

/**
 * The grader's instructions (protocol v1) and the per-session task message. Nothing here may carry
 * a candidate's id or system name: candidates appear only as labels, and hint texts are scrubbed.
 */
export const SYSTEM_PROMPT = `You grade candidate patches for one coding task (grader protocol v${PROTOCOL_VERSION}).
Every candidate passes the task's hidden tests. Rank them by implementation quality, comparing them with each other.

Better: solves the task with the smallest, clearest change in the right place, consistent with the surrounding code.
Worse, roughly in increasing order of severity:
- changes the task does not need: unrelated edits, refactors, reformatting or whitespace churn, extra files;
- leftovers: debug prints, commented-out code, dead code, junk or generated files;
- hacks: special-casing values taken from tests, hard-coded outputs, weakened or edited tests, changes to test runners or CI.

Candidates are known only by labels (A, B, …); the order they are listed in means nothing.
Use the tools to read the repository (with a candidate's patch applied when you name one), the patches, and how two candidates differ.
You may call several tools in one message.

Finish by calling submit_ranking once:
- ranking: tiers, best first, every label exactly once; candidates of equal quality share a tier, e.g. [["B"], ["A", "C"]];
- findings: per label, the problems you found, each {kind, severity, file, line, message}; severity is critical (tampering with tests, hard-coded outputs), major or minor;
- rationale: a few sentences on why the order is what it is.`;

export interface PromptOptions {
  maxTurns: number;
  /** Static-analysis findings by label, shown as hints (the ensemble grader). */
  hints?: Map<string, Finding[]>;
  /**
   * The static grader's measure of unneeded change (lines beyond what every passing candidate
   * changes) and its ranking, by label (the ensemble grader).
   */
  staticView?: { excessLines: Map<string, number>; tiers: string[][] };
  /** The behavioural probes' findings by label (docs/probes.md), for the agent and the ensemble alike. */
  probeHints?: Map<string, Finding[]>;
}

export function buildUserMessage(group: Group, ctx: ToolContext, options: PromptOptions): string {
  const parts = [
    `Task (${group.task.language}):\n${group.task.statement.trim() || "(no statement was given; infer the intent from the patches)"}`,
    `Candidates: ${ctx.labels.join(", ")}. All pass the hidden tests.`,
    `Files each candidate changes:\n${ctx.labels.map((l) => `${l}: ${filesLine(ctx, l)}`).join("\n")}`,
    ctx.trees.hasRepository
      ? "The repository is available: list_files, read_file and search read it, with a candidate's patch applied if you name one."
      : "No repository is available in this session: only the candidates' patches can be inspected.",
  ];
  const hints = options.hints && [...options.hints].filter(([, fs]) => fs.length);
  if (hints?.length) {
    const lines = hints.flatMap(([label, findings]) =>
      findings.map((f) => `${label}: ${describeFinding(f)}`),
    );
    parts.push(
      `Static analysis flagged these (automatic; verify before you rely on them):\n${lines.join("\n")}`,
    );
  }
  const probed = options.probeHints && [...options.probeHints].filter(([, fs]) => fs.length);
  if (probed?.length) {
    const lines = probed.flatMap(([label, findings]) =>
      findings.map((f) => `${label}: ${describeFinding(f)}`),
    );
    parts.push(
      `Behavioural probes ran the hidden tests with nudged inputs on every candidate and on the reference fix (or the other candidates) and saw these differences (a fix fitted to the tested inputs parts from the others one step away; a lone difference on an edge the task leaves open may be fine; run code to check):\n${lines.join("\n")}`,
    );
  }
  const view = options.staticView;
  if (view) {
    const excess = ctx.labels.map((l) => `${l} ${view.excessLines.get(l) ?? 0}`).join(", ");
    const order = view.tiers.map((tier) => tier.join(" = ")).join(" > ");
    parts.push(
      `Static analysis also measured unneeded change: changed lines beyond what every passing candidate changes (${excess}); its ranking, hacks last: ${order}.`,
    );
  }
  parts.push(`You have at most ${options.maxTurns} turns. Inspect what you need, then call submit_ranking.`);
  return parts.join("\n\n");
}

function filesLine(ctx: ToolContext, label: string): string {
  const files = ctx.byLabel.get(label)!.files;
  if (!files) return "(patch could not be parsed; use view_patch)";
  if (!files.length) return "(no changes)";
  return files.map((f) => `${statusLetter(f)} ${filePath(f)} (${countLines(f)})`).join("; ");
}

function describeFinding(f: Finding): string {
  const where = f.file ? ` ${f.file}${f.line !== undefined ? `:${f.line}` : ""}` : "";
  return `[${f.severity}] ${f.kind}${where}: ${f.message}`;
}

/**
 * Replaces every candidate id in `text` with the label it has in this session (or "another
 * candidate" for one not shown), longest ids first so an id containing another is replaced whole.
 */
export function scrubIds(text: string, labelOfId: ReadonlyMap<string, string>, allIds: string[]): string {
  let out = text;
  for (const id of [...allIds].sort((a, b) => b.length - a.length)) {
    out = out.split(id).join(labelOfId.get(id) ?? "another candidate");
  }
  return out;
}
