import { type CandidateView, newSideLines } from "./candidate-view.ts";
import type { CodeFacts, DefinitionFact } from "./code-facts.ts";
import type { Evidence } from "./evidence.ts";
import { IDENTIFIER } from "./profile.ts";
import type { Workspace } from "./workspace.ts";

/**
 * New functions and classes that nothing uses.
 *
 * A definition added by the patch is unused when its name occurs nowhere else: not in the patch's
 * other lines (any file, context included), not in lines the patch deletes (then it existed before
 * and was only edited), not in any other candidate's patch (the group needs that name, e.g. the tests
 * call it), and not in the workspace when one is readable. Definitions reachable from outside are
 * not judged: exported or decorated ones, and methods that may override a base class or serve a
 * framework (only private `_name`/`#name` methods are). Test files are not judged either.
 */
export function unusedDefinitionEvidence(
  view: CandidateView,
  facts: ReadonlyMap<string, CodeFacts>,
  othersMention: (word: string) => boolean,
  workspace: Workspace | null,
): Evidence[] {
  const candidates: { path: string; def: DefinitionFact }[] = [];
  for (const file of view.files) {
    if (file.role !== "source") continue;
    for (const def of facts.get(file.path)?.definitions ?? []) {
      if (judged(def)) candidates.push({ path: file.path, def });
    }
  }
  if (candidates.length === 0) return [];
  const names = new Set(candidates.map((c) => c.def.name));
  const visible = wordCounts(view, "visible", names);
  const deleted = wordCounts(view, "deleted", names);
  const evidence: Evidence[] = [];
  for (const { path, def } of candidates) {
    const ownLine = lineText(view, path, def.newLine);
    const uses = (visible.get(def.name) ?? 0) - countWord(ownLine, def.name);
    if (uses > 0 || deleted.has(def.name) || othersMention(def.name)) continue;
    if (workspace?.hasWord(def.name)) continue;
    evidence.push({
      kind: "unused-definition",
      file: path,
      line: def.newLine,
      message: `new ${def.kind} \`${def.name}\` is never referenced in the patch${workspace ? " or the repository" : ""}; use it or remove it`,
    });
  }
  return evidence;
}

const ENTRY_POINTS = /^(main|setUp\w*|tearDown\w*|setup\w*|teardown\w*|test\w*|Test\w*)$/;

function judged(def: DefinitionFact): boolean {
  if (def.external || ENTRY_POINTS.test(def.name) || /^__\w+__$/.test(def.name)) return false;
  // A method may override a base class or serve a framework; only a private one is surely internal.
  if (def.container === "class" || def.container === "unknown") return def.private;
  return true;
}

/**
 * Identifier counts over the patch's new side (context and additions) or over its deletions; only
 * of `only` when given (the names in question).
 */
export function wordCounts(
  view: CandidateView,
  side: "visible" | "deleted",
  only?: ReadonlySet<string>,
): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (text: string) => {
    for (const w of text.match(IDENTIFIER) ?? [])
      if (!only || only.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  };
  for (const file of view.files) {
    if (side === "deleted") {
      for (const c of file.changes) if (c.kind === "del") add(c.text);
    } else {
      for (const row of newSideLines(file)) add(row.text);
    }
  }
  return counts;
}

function lineText(view: CandidateView, path: string, newLine: number): string {
  const file = view.files.find((f) => f.path === path);
  return file?.changes.find((c) => c.kind === "add" && c.newLine === newLine)?.text ?? "";
}

function countWord(text: string, word: string): number {
  return (text.match(IDENTIFIER) ?? []).filter((w) => w === word).length;
}
