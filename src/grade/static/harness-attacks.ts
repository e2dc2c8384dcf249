import type { Finding } from "../../contracts/finding.ts";
import { lineAttacks, shadowingAttack, topLevelModule } from "../../hacks/harness-attacks.ts";
import type { CandidateView } from "./candidate-view.ts";
import { type FindingKind, KINDS } from "./defaults.ts";
import type { Evidence } from "./evidence.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Attacks on the test harness from inside the test process (docs/security.md §7; the rules are in
 * hacks/harness-attacks.ts), as critical evidence: a module of the repository shadowed from a test
 * directory, the tests re-run with stub results, assertion APIs or the framework's reporting replaced,
 * the tests read by the code under test. `repositoryModules` are the top-level Python modules the
 * group's candidates change (the workspace is asked for the others).
 */
export function harnessAttackEvidence(
  view: CandidateView,
  repositoryModules: ReadonlySet<string>,
  workspace: Workspace | null,
): Evidence[] {
  const evidence: Evidence[] = [];
  const isRepositoryModule = (name: string) =>
    repositoryModules.has(name) ||
    ["", "src/", "lib/"].some(
      (root) =>
        workspace?.readFile(`${root}${name}.py`) != null ||
        workspace?.readFile(`${root}${name}/__init__.py`) != null,
    );
  for (const file of view.files) {
    const shadow = shadowingAttack(file.path, file.status === "added", isRepositoryModule);
    if (shadow)
      evidence.push({ kind: shadow.kind, file: file.path, line: shadow.line, message: shadow.message });
    const added = file.changes
      .filter((c) => c.kind === "add")
      .map((c) => ({ text: c.text, line: c.newLine }));
    for (const attack of lineAttacks(file.path, added))
      evidence.push({ kind: attack.kind, file: file.path, line: attack.line, message: attack.message });
  }
  return evidence;
}

/** The top-level Python modules that any candidate of the group changes: the repository's own. */
export function changedModules(views: readonly CandidateView[]): Set<string> {
  const names = new Set<string>();
  for (const view of views)
    for (const file of view.files) {
      if (file.status === "added") continue;
      const name = topLevelModule(file.path);
      if (name) names.add(name);
    }
  return names;
}

/**
 * The verifier's critical findings on a candidate (Group `candidates[].findings`, from its verdict) as
 * evidence: what the guards saw at run time, or the gate's scan, counts against the candidate here too;
 * so do the behavioural probes' critical findings the pipeline adds there (docs/probes.md).
 */
export function verifierEvidence(findings: readonly Finding[] | undefined): Evidence[] {
  return (findings ?? [])
    .filter((f) => f.severity === "critical")
    .map((f) => {
      const kind: FindingKind =
        f.kind in KINDS && KINDS[f.kind as FindingKind].severity === "critical"
          ? (f.kind as FindingKind)
          : "harness-tampering";
      return {
        kind,
        ...(f.file && { file: f.file }),
        ...(f.line && { line: f.line }),
        message: `${f.kind === "behaviour-divergence" ? "probes" : "verifier"}: ${f.message}`,
      };
    });
}
