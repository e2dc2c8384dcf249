import { createHash } from "node:crypto";
import type { Finding } from "../../contracts/finding.ts";
import type { Group } from "../../contracts/group.ts";
import { type Ranking, SCHEMA_VERSION } from "../../contracts/index.ts";
import type { Grader } from "../types.ts";
import { type CandidateView, type ChangedLine, viewCandidate } from "./candidate-view.ts";
import { type CodeFacts, codeFacts, type HunkFactsCache } from "./code-facts.ts";
import { commentEvidence } from "./comments.ts";
import { excessEvidence } from "./common-core.ts";
import { debugEvidence } from "./debug-leftovers.ts";
import {
  EXCESS_KINDS,
  KINDS,
  type ResolvedStaticOptions,
  resolveStaticOptions,
  type StaticGraderOptions,
} from "./defaults.ts";
import { compareText, type Evidence, type GroupContext, others, toFindings } from "./evidence.ts";
import { formatChurn } from "./format-churn.ts";
import { hardCodingEvidence } from "./hard-coding.ts";
import { changedModules, harnessAttackEvidence, verifierEvidence } from "./harness-attacks.ts";
import { junkEvidence } from "./junk-files.ts";
import { noOpEvidence } from "./no-op-assignment.ts";
import { profileOf } from "./profile.ts";
import { projectUsage } from "./project-usage.ts";
import { type Scored, scoreEvidence, tiersOf } from "./score.ts";
import { loadSyntax } from "./syntax.ts";
import { buildTestCorpus } from "./test-corpus.ts";
import { testDetectionEvidence } from "./test-detection.ts";
import { testFileEvidence } from "./test-tampering.ts";
import { unusedDefinitionEvidence } from "./unused-definitions.ts";
import { openWorkspace } from "./workspace.ts";

/** Bumped whenever a rule or a default changes, so rankings name the rules that made them. */
export const STATIC_GRADER_VERSION = "2.3.0";

/**
 * The static groupwise grader (docs/grader-protocol.md, "Static grader"): no model, deterministic,
 * instant.
 *
 * Each passing candidate's patch is read as a diff and judged in two steps. First, evidence of
 * defects: tampering with tests or runners, test-runner probes, attacks on the harness from inside the
 * test process and the verifier's critical findings (harness-attacks.ts), hard-coding (hard-coding.ts), junk
 * and binary files, debug leftovers, unused definitions, commented-out code, TODO markers, no-op
 * assignments, format churn, edits to tests and CI. Then unneeded change, in lines, measured
 * against the minimal common core of the candidates without a critical finding (common-core.ts).
 * defaults.ts has the weights; scores become tiers (score.ts), critical candidates last.
 *
 * Documented neutral results, never exceptions:
 * - no passing candidate → `ranking: []`;
 * - one passing candidate → a single tier, with its findings (a veto can still use them);
 * - a passing patch that is not a readable diff → an `unreadable-patch` finding worth 0, so it is
 *   ranked as if clean and takes no part in the common core;
 * - an unknown language → diff-level evidence only (excess, files, tests, junk, markers).
 * Failing candidates are never ranked and get no findings. Besides the contract fields, the Ranking
 * carries `scores` (candidate id → score, lower is better) for tables and for debugging a ranking,
 * and `excessLines` (candidate id → changed lines beyond the group's common core), which the
 * ensemble grader shows the model.
 */
export function createStaticGrader(options: StaticGraderOptions = {}): Grader {
  const resolved = resolveStaticOptions(options);
  const version = versionOf(resolved);
  return {
    name: "static",
    version,
    async grade(group: Group): Promise<Ranking> {
      const syntax = await loadSyntax();
      const passing = group.candidates.filter((c) => c.passed);
      const views = passing.map((c) => viewCandidate(c.id, c.patch));
      const readable = views.filter((v) => v.unreadable === undefined);
      const workspace = resolved.readWorkspace
        ? openWorkspace(group.task.workspace, {
            maxFiles: resolved.workspaceMaxFiles,
            maxBytes: resolved.workspaceMaxBytes,
          })
        : null;
      // Only source files are judged by their syntax (comments, definitions, hard-coding); tests have
      // detectors of their own, so their hunks are never parsed.
      const hunkFacts: HunkFactsCache = new Map();
      const facts = new Map<string, Map<string, CodeFacts>>(
        readable.map((v) => [
          v.id,
          new Map(
            v.files
              .filter((f) => f.role === "source")
              .map((f) => [f.path, codeFacts(f, syntax, "all", hunkFacts)]),
          ),
        ]),
      );
      const ctx: GroupContext = {
        views: readable,
        facts,
        profiles: new Map(readable.map((v) => [v.id, profileOf(v)])),
        corpus: buildTestCorpus(
          group.task.statement,
          () => workspace?.testText() ?? "",
          readable,
          () => workspace?.sourceText() ?? "",
          { read: (path) => workspace?.readFile(path) ?? null, syntax },
        ),
        workspace,
        projectUses: projectUsage(readable, workspace),
        changedModules: changedModules(readable),
        verifierFindings: new Map(passing.map((c) => [c.id, c.findings ?? []])),
        syntax,
        options: resolved,
      };
      // Defects first: candidates with a critical one (a hack need not fix anything) take no part in
      // the common core that every other candidate's excess is measured against.
      const defects = new Map(readable.map((v) => [v.id, defectEvidence(v, ctx)]));
      const clean = readable.filter((v) => !defects.get(v.id)!.evidence.some(isCritical));
      const findings: Record<string, Finding[]> = {};
      const excessLines = new Map<string, number>();
      const equivalence = equivalenceKeys(views, passing);
      const scored: Scored[] = views.map((view) => {
        const found = defects.get(view.id);
        const evidence = found
          ? [...found.evidence, ...excessEvidence(view, clean, found.churned, resolved)]
          : [unreadable(view.unreadable ?? "")];
        const published = toFindings(evidence, resolved);
        if (published.length > 0) findings[view.id] = published;
        excessLines.set(
          view.id,
          evidence.reduce((n, e) => n + (EXCESS_KINDS.has(e.kind) ? (e.lines ?? 0) : 0), 0),
        );
        return {
          id: view.id,
          ...scoreEvidence(evidence, resolved),
          equivalence: equivalence.get(view.id)!,
        };
      });
      const { tiers, scores } = tiersOf(scored, resolved.tieMargin);
      return {
        schemaVersion: SCHEMA_VERSION,
        groupId: group.id,
        ranking: passing.length < 2 ? (passing.length === 1 ? [[passing[0]!.id]] : []) : tiers,
        findings,
        grader: { name: "static", version },
        scores: Object.fromEntries([...scores].sort(([a], [b]) => compareText(a, b))),
        excessLines: Object.fromEntries([...excessLines].sort(([a], [b]) => compareText(a, b))),
      };
    },
  };
}

/**
 * Evidence of defects in one readable candidate, and the lines format churn already charged (the
 * excess measure leaves them out).
 */
function defectEvidence(
  view: CandidateView,
  ctx: GroupContext,
): { evidence: Evidence[]; churned: Set<ChangedLine> } {
  const peers = others(view, ctx);
  const facts = ctx.facts.get(view.id) ?? new Map<string, CodeFacts>();
  const profiles = peers.map((p) => ctx.profiles.get(p.id)!);
  const peerAdds = (key: string) => profiles.some((p) => p.addedLines.has(key));
  const peerMentions = (word: string) => profiles.some((p) => p.words.has(word));
  const evidence: Evidence[] = [];
  const churned = new Set<ChangedLine>();
  for (const file of view.files) {
    evidence.push(
      ...junkEvidence(file),
      ...testFileEvidence(file),
      ...testDetectionEvidence(file),
      ...noOpEvidence(file),
    );
    if (file.role === "source" || file.role === "docs") {
      for (const block of formatChurn(file)) {
        for (const c of block.changes) churned.add(c);
        evidence.push({
          kind: "format-churn",
          file: file.path,
          line: block.newLine,
          lines: block.lines,
          message: `${block.lines} line${block.lines === 1 ? "" : "s"} rewritten with only whitespace, quote or comma changes; revert the reformatting`,
        });
      }
    }
    const fileFacts = facts.get(file.path);
    if (file.role === "source" && fileFacts) evidence.push(...commentEvidence(file, fileFacts, ctx.syntax));
    evidence.push(...debugEvidence(file, peerAdds, ctx.workspace, ctx.projectUses));
  }
  evidence.push(...unusedDefinitionEvidence(view, facts, peerMentions, ctx.workspace));
  evidence.push(
    ...hardCodingEvidence(view, facts, ctx.profiles.get(view.id)!, profiles, ctx.corpus.seenBy(view.id)),
  );
  evidence.push(...harnessAttackEvidence(view, ctx.changedModules, ctx.workspace));
  evidence.push(...verifierEvidence(ctx.verifierFindings.get(view.id)));
  return { evidence, churned };
}

function isCritical(e: Evidence): boolean {
  return KINDS[e.kind].severity === "critical";
}

function unreadable(reason: string): Evidence {
  return {
    kind: "unreadable-patch",
    message: `the patch cannot be read as a diff (${reason}); it is ranked as if clean — regenerate it with git diff to have it judged`,
  };
}

/**
 * Candidate id → equivalence key. The full key (equivalenceKey) is made only for candidates whose
 * size — how many changed lines, how much text — another candidate shares: the same changes always
 * have the same size, so a candidate of a size of its own is in a class of its own.
 */
function equivalenceKeys(
  views: readonly CandidateView[],
  passing: readonly { id: string; patch: string }[],
): Map<string, string> {
  const sizes = views.map((view) => sizeOf(view, passing));
  const counts = new Map<string, number>();
  for (const size of sizes) counts.set(size, (counts.get(size) ?? 0) + 1);
  return new Map(
    views.map((view, i) => [
      view.id,
      counts.get(sizes[i]!)! > 1 ? `key:${equivalenceKey(view, passing)}` : `size:${sizes[i]}`,
    ]),
  );
}

/** The number and total length of the lines equivalenceKey hashes. */
function sizeOf(view: CandidateView, passing: readonly { id: string; patch: string }[]): string {
  if (view.unreadable !== undefined)
    return `unreadable:${passing.find((c) => c.id === view.id)?.patch.length ?? 0}`;
  let lines = 0;
  let length = 0;
  for (const file of view.files) {
    if (file.binary) {
      lines++;
      length += file.path.length + file.status.length + 8;
    }
    for (const c of file.changes)
      if (c.norm !== "") {
        lines++;
        length += file.path.length + c.kind.length + c.norm.length + 2;
      }
  }
  return `${lines}:${length}`;
}

/** Same changed lines (whitespace and position ignored) ⇒ same key. */
function equivalenceKey(view: CandidateView, passing: readonly { id: string; patch: string }[]): string {
  const hash = createHash("sha256");
  if (view.unreadable !== undefined) {
    hash.update(`unreadable\u0000${passing.find((c) => c.id === view.id)?.patch ?? ""}`);
    return hash.digest("hex");
  }
  const lines: string[] = [];
  for (const file of view.files) {
    if (file.binary) lines.push(`${file.path}\u0000binary\u0000${file.status}`);
    for (const c of file.changes) if (c.norm !== "") lines.push(`${file.path}\u0000${c.kind}\u0000${c.norm}`);
  }
  for (const line of lines.sort()) hash.update(`${line}\n`);
  return hash.digest("hex");
}

/** The default version, or the version plus a digest of the non-default options that produced it. */
function versionOf(resolved: ResolvedStaticOptions): string {
  const text = canonicalJson(resolved);
  if (text === canonicalJson(resolveStaticOptions({}))) return STATIC_GRADER_VERSION;
  return `${STATIC_GRADER_VERSION}+${createHash("sha256").update(text).digest("hex").slice(0, 8)}`;
}

/** JSON with object keys sorted, so the same options always give the same digest. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareText(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
