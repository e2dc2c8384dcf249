import type { Candidate } from "../../contracts/group.ts";
import { DiffParseError, type FileDiff, parseDiff } from "../../diff/parse.ts";
import type { CandidateTrees } from "./candidate-trees.ts";
import type { ProbeSession } from "./run-probe.ts";
import { ToolError } from "./tool-error.ts";

/** A candidate as one session's tools see it: under its label for this pass. */
export interface ShownCandidate {
  label: string;
  candidate: Candidate;
  /** The parsed patch, or undefined when it does not parse (the raw text is still viewable). */
  files: FileDiff[] | undefined;
}

/** What the tools of one session (one pass over a group) work on. */
export interface ToolContext {
  trees: CandidateTrees;
  /** Labels in the order shown to the model. */
  labels: string[];
  byLabel: ReadonlyMap<string, ShownCandidate>;
  /** The sandbox for run_probe, when the group's task pack is known. */
  probe?: ProbeSession;
}

export function createToolContext(
  trees: CandidateTrees,
  shown: Array<{ label: string; candidate: Candidate }>,
  probe?: ProbeSession,
): ToolContext {
  return {
    trees,
    ...(probe && { probe }),
    labels: shown.map((s) => s.label),
    byLabel: new Map(shown.map((s) => [s.label, { ...s, files: parsePatch(s.candidate.patch) }])),
  };
}

function parsePatch(patch: string): FileDiff[] | undefined {
  try {
    return parseDiff(patch);
  } catch (e) {
    if (e instanceof DiffParseError) return undefined;
    throw e;
  }
}

/** The candidate behind a label the model sent; a wrong label is the model's to fix. */
export function shown(ctx: ToolContext, label: string): ShownCandidate {
  const found = ctx.byLabel.get(label.trim().toUpperCase());
  if (!found)
    throw new ToolError(`unknown candidate "${label}"; the candidates are ${ctx.labels.join(", ")}`);
  return found;
}

/** The root to read for an optional label: the candidate's patched copy, or the base repository. */
export function treeFor(ctx: ToolContext, label: string | undefined): Promise<string> {
  return ctx.trees.root(label === undefined ? undefined : shown(ctx, label).candidate.id);
}
