import type { Finding } from "../../contracts/finding.ts";
import type { CandidateView } from "./candidate-view.ts";
import type { CodeFacts } from "./code-facts.ts";
import { type FindingKind, KINDS, kindWeights, type ResolvedStaticOptions } from "./defaults.ts";
import type { CandidateProfile } from "./profile.ts";
import type { ProjectUsage } from "./project-usage.ts";
import type { Syntax } from "./syntax.ts";
import type { TestCorpus } from "./test-corpus.ts";
import type { Workspace } from "./workspace.ts";

/** A finding before it is published: its kind is one of the scoring table's, and it may cover lines. */
export interface Evidence {
  kind: FindingKind;
  file?: string;
  /** New-file line number. */
  line?: number;
  message: string;
  /** Changed lines the finding covers, for per-line kinds (unneeded change, churn). */
  lines?: number;
}

/** Everything a detector may look at: the group's readable passing candidates and their shared context. */
export interface GroupContext {
  views: readonly CandidateView[];
  /** Code facts per candidate id, then per path of a source file. */
  facts: ReadonlyMap<string, ReadonlyMap<string, CodeFacts>>;
  /** What each candidate shows the others, per candidate id. */
  profiles: ReadonlyMap<string, CandidateProfile>;
  corpus: TestCorpus;
  workspace: Workspace | null;
  /** Whether the project's library code already wrote a text before the patches (project-usage.ts). */
  projectUses: ProjectUsage;
  /** Top-level Python modules the group's candidates change (harness-attacks.ts). */
  changedModules: ReadonlySet<string>;
  /** The verifier's findings per candidate id (Group `candidates[].findings`). */
  verifierFindings: ReadonlyMap<string, readonly Finding[]>;
  syntax: Syntax;
  options: ResolvedStaticOptions;
}

export function others(view: CandidateView, ctx: GroupContext): CandidateView[] {
  return ctx.views.filter((v) => v.id !== view.id);
}

export function evidenceScore(evidence: Evidence, options: ResolvedStaticOptions): number {
  const { weight, perLine } = kindWeights(evidence.kind, options);
  return weight + perLine * (evidence.lines ?? 0);
}

const SEVERITY_ORDER = { critical: 0, major: 1, minor: 2 } as const;

/**
 * Publishes evidence as contract Findings, worst first (severity, then weight), then by place, so the
 * output does not depend on detector order.
 */
export function toFindings(evidence: readonly Evidence[], options: ResolvedStaticOptions): Finding[] {
  return [...evidence]
    .sort(
      (a, b) =>
        SEVERITY_ORDER[KINDS[a.kind].severity] - SEVERITY_ORDER[KINDS[b.kind].severity] ||
        evidenceScore(b, options) - evidenceScore(a, options) ||
        compareText(a.file ?? "", b.file ?? "") ||
        (a.line ?? 0) - (b.line ?? 0) ||
        compareText(a.kind, b.kind) ||
        compareText(a.message, b.message),
    )
    .map((e) => ({
      kind: e.kind,
      severity: KINDS[e.kind].severity,
      ...(e.file === undefined ? {} : { file: e.file }),
      ...(e.line === undefined ? {} : { line: e.line }),
      message: e.message,
    }));
}

/** Code-unit order, independent of the machine's locale (output must be byte-identical everywhere). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
