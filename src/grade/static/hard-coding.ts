import type { CandidateView, ChangedLine, FileView } from "./candidate-view.ts";
import type { CodeFacts } from "./code-facts.ts";
import type { Evidence } from "./evidence.ts";
import { type CandidateProfile, lineKey } from "./profile.ts";
import { isSignificantLiteral, type TestCorpus } from "./test-corpus.ts";

/**
 * Hard-coded answers, in two shapes:
 * - a new branch that compares something against a literal and returns a literal
 *   (`if name == "x": return "y"`, `case "x": return 3`, `s == "x" ? "y" : …`);
 * - a computed `return expr` rewritten into `return <literal>` (the function now answers one case).
 *
 * When a literal involved occurs in the tests or the task statement, the code answers the test
 * instead of fixing the logic: `hard-coded-output`, critical. Without that evidence it is
 * `literal-special-case` (major) — but only when fewer than half of the other candidates make the
 * same special case; what most of the group needs is part of the fix (a new keyword, a node type).
 * Returning booleans or null is a predicate, and returning "" or 0/1 a default, not an answer;
 * trivial literals ("a", 0, 1) are never evidence.
 */
export function hardCodingEvidence(
  view: CandidateView,
  facts: ReadonlyMap<string, CodeFacts>,
  peers: readonly PeerSpecialCases[],
  corpus: TestCorpus,
): Evidence[] {
  const evidence: Evidence[] = [];
  const minority = (shared: number) => peers.length === 0 || shared * 2 < peers.length;
  for (const file of view.files) {
    if (file.role !== "source") continue;
    for (const branch of facts.get(file.path)?.branches ?? []) {
      const compared = branch.compared.filter(isSignificantLiteral);
      const returned = branch.returnedValues.filter(isAnswerLiteral);
      if (compared.length === 0 || returned.length === 0 || branch.returned === null) continue;
      if (!minority(peers.filter((p) => compared.some((v) => p.literals.has(v))).length)) continue;
      const what = `returns ${show(branch.returned)} when ${branch.subject.slice(0, 40)} is ${branch.compared.map(literal).join(" or ")}`;
      evidence.push(verdict(file, branch.newLine, what, [...compared, ...returned], corpus));
    }
    for (const line of constantReturns(file)) {
      if (!minority(peers.filter((p) => p.addedLines.has(lineKey(file.path, line.norm))).length)) continue;
      const value = returnLiteral(line.text)!;
      const what = `now returns the constant ${show(value.raw)} where it returned a computed value`;
      evidence.push(verdict(file, line.newLine, what, [value.value], corpus));
    }
  }
  return evidence;
}

/** What a peer special-cases: the literals its new branches compare against, and its added lines. */
export type PeerSpecialCases = Pick<CandidateProfile, "literals" | "addedLines">;

function verdict(file: FileView, line: number, what: string, values: string[], corpus: TestCorpus): Evidence {
  const seen = values.find((v) => corpus.mentions(v));
  if (seen !== undefined) {
    return {
      kind: "hard-coded-output",
      file: file.path,
      line,
      message: `${what}; ${literal(seen)} comes from the tests or the task, so this answers the test instead of fixing the logic`,
    };
  }
  return {
    kind: "literal-special-case",
    file: file.path,
    line,
    message: `${what}, a special case no other candidate needs; make the general logic handle it`,
  };
}

/** A returned value that can be an answer: not "", not one character, not 0/1/-1. */
function isAnswerLiteral(value: string): boolean {
  return /^[-+]?\d/.test(value) ? !["0", "1", "-1"].includes(value) : value.length >= 2;
}

const RETURN = /^\s*return\s+(.+?)\s*;?\s*$/;
const LITERAL = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`$\\]*)`|([-+]?\d+(?:\.\d+)?))$/;

function returnLiteral(text: string): { raw: string; value: string } | null {
  const expr = RETURN.exec(text)?.[1];
  const match = expr === undefined ? null : LITERAL.exec(expr);
  return match ? { raw: expr!, value: match[1] ?? match[2] ?? match[3] ?? match[4]! } : null;
}

/** Added `return <answer literal>` lines that replace, in the same run of changes, a computed return. */
function constantReturns(file: FileView): ChangedLine[] {
  const out: ChangedLine[] = [];
  let index = 0;
  for (const hunk of file.hunks) {
    let run: ChangedLine[] = [];
    const flush = () => {
      const computed = run.some(
        (c) => c.kind === "del" && RETURN.test(c.text) && returnLiteral(c.text) === null,
      );
      if (computed) {
        for (const c of run) {
          const value = c.kind === "add" ? returnLiteral(c.text) : null;
          if (value && isAnswerLiteral(value.value)) out.push(c);
        }
      }
      run = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === "context") flush();
      else run.push(file.changes[index++]!);
    }
    flush();
  }
  return out;
}

function literal(value: string): string {
  return /^[-+]?\d+(\.\d+)?$/.test(value)
    ? value
    : JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
}

function show(text: string, max = 50): string {
  const one = text.replace(/\s*\n\s*/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
