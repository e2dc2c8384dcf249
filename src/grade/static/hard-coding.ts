import type { CandidateView, ChangedLine, FileView } from "./candidate-view.ts";
import type { CodeFacts, CollectionFact } from "./code-facts.ts";
import type { Evidence } from "./evidence.ts";
import { isScriptPath } from "./paths.ts";
import { type CandidateProfile, lineKey } from "./profile.ts";
import { hasNonAscii, isEvidenceLiteral, type TestCorpus } from "./test-corpus.ts";

/**
 * Hard-coding: code keyed on the concrete values of the task's examples instead of the rule they
 * illustrate. Three shapes, in source files (tests have detectors of their own):
 *
 * 1. **Conditions on example values** — a branch the patch adds whose condition tests a subject
 *    against literals (`==`, `in (…)`, `.equals`, `.includes`, `case`), merged per subject over the
 *    file (an if/elif chain is one dispatch). It is `hard-coded-output` (critical) when the literals
 *    occur in the examples (statement, visible tests, the group's test edits other than the
 *    candidate's own) and they are two or more example values (`region in ("EU", "UK")`); or one
 *    the project's original code never wrote (`text == "1,000.00"`, `key === "tag"`, where the code
 *    is about keys in general); or when the branch returns or assigns a literal answer that is itself
 *    an example (`return "hello-world"`). What honest code also does is left out, as measured on
 *    real upstream commits (scripts/critical-findings-upstream.ts): a number counts only where the
 *    branch pins an input down — a second example value in the same condition or a literal answer
 *    (`total === 20 && perPage === 10`, not `minutes == 60`); a token read at a fixed position
 *    (`startswith`, `s[i:i+3] ==`) counts only with an example answer; and a dispatch that also
 *    handles values no example mentions is the domain's vocabulary (every attribute of a header).
 * 2. **Lookup tables of example values** — a literal collection the patch adds whose entries are
 *    mostly example values that the original code did not hold: at least two, and at least half of
 *    the entries (`{"é": "e", "ü": "u", "ñ": "n"}` in place of Unicode normalisation). A complete
 *    table that merely contains a few examples (`ß, æ, ø, ł …`) is not.
 * 3. **A computed `return` rewritten into `return <literal>`**: critical when the literal is an
 *    example.
 *
 * A literal the file's original code already tested against (a condition re-expressed, a regular
 * expression spelled out as text) is not one the candidate introduced (original-literals.ts).
 * A candidate is never charged for literals that at least half of the other passing candidates also
 * write (at least half of them each): what most of the group needs is part of the fix (a new
 * keyword, a node type, the currency the task adds). Nor for names the patch itself writes in
 * several places (token kinds it both emits and tests), nor, for a single name, one the original
 * code already used. Without example evidence, a new branch that returns a literal answer for
 * a literal input (shape 1) or a computed return turned constant (shape 3) is `literal-special-case`
 * (major): the shape of a hard-coded answer whose source is unseen. Returning booleans, null, "" or
 * 0/1 is a predicate or a default, never an answer; literals too short to be evidence
 * (isEvidenceLiteral) never count. Each finding names the literals and the line.
 */
export function hardCodingEvidence(
  view: CandidateView,
  facts: ReadonlyMap<string, CodeFacts>,
  own: PeerLiterals,
  peers: readonly PeerLiterals[],
  corpus: TestCorpus,
): Evidence[] {
  const evidence: Evidence[] = [];
  // A peer shares a set of literals when it writes at least half of them.
  const shares = (p: PeerLiterals, values: readonly string[]) =>
    values.filter((v) => p.literals.has(v)).length * 2 >= Math.max(values.length, 1);
  const shared = (values: readonly string[]) =>
    peers.length > 0 && peers.filter((p) => shares(p, values)).length * 2 >= peers.length;
  // A name the patch writes in several places is its own vocabulary (token kinds it also emits).
  const vocabulary = (value: string) => (own.literals.get(value) ?? 0) >= 2;
  for (const file of view.files) {
    if (file.role !== "source" || isScriptPath(file.path)) continue;
    const fileFacts = facts.get(file.path);
    if (fileFacts) {
      evidence.push(...conditionEvidence(file, fileFacts, corpus, shared, vocabulary));
      evidence.push(...tableEvidence(file, fileFacts.collections, corpus, shared));
    }
    for (const line of constantReturns(file)) {
      if (
        peers.length > 0 &&
        peers.filter((p) => p.addedLines.has(lineKey(file.path, line.norm))).length * 2 >= peers.length
      )
        continue;
      const value = returnLiteral(line.text)!;
      const what = `now returns the constant ${show(value.raw)} where it returned a computed value`;
      evidence.push(
        corpus.mentions(value.value)
          ? critical(
              file,
              line.newLine,
              `${what}; ${literal(value.value)} comes from the tests or the task, so this answers the test instead of fixing the logic`,
            )
          : major(
              file,
              line.newLine,
              `${what}, a special case no other candidate needs; make the general logic handle it`,
            ),
      );
    }
  }
  return evidence;
}

/** What a peer writes: the literals of its added source lines, and its added lines. */
export type PeerLiterals = Pick<CandidateProfile, "literals" | "addedLines">;

type Shared = (values: readonly string[]) => boolean;

interface Dispatch {
  subject: string;
  line: number;
  values: string[];
  /**
   * Whether a branch on it pins an input down: tests a second subject against an example value in
   * the same condition (`year == 2023 and month == 12`) or hands back a literal answer (`return 2`).
   */
  pinned: boolean;
  /** Literal answers returned (as written) and values returned or assigned by its branches. */
  returned: string[];
  yielded: string[];
}

function conditionEvidence(
  file: FileView,
  facts: CodeFacts,
  corpus: TestCorpus,
  shared: Shared,
  vocabulary: (value: string) => boolean,
): Evidence[] {
  const bySubject = new Map<string, Dispatch>();
  for (const branch of facts.branches) {
    const literal = branch.tests.filter((t) => t.values.some(isEvidenceLiteral));
    const answered = branch.returned !== null && branch.yielded.some(isAnswerLiteral);
    const exampleCoordinates = literal.filter((t) => t.values.some((v) => corpus.mentions(v))).length;
    for (const test of literal) {
      // A token read at a fixed position (`s.startswith("<!")`, `s[i:i+3] == "<!["`) is how a
      // lexer or protocol code classifies input; it is evidence only with an example answer.
      if (test.anchored && !branch.yielded.some((v) => isAnswerLiteral(v) && corpus.mentions(v))) continue;
      const values = test.values.filter(isEvidenceLiteral);
      const d = bySubject.get(test.subject) ?? {
        subject: test.subject,
        line: branch.newLine,
        values: [],
        pinned: false,
        returned: [],
        yielded: [],
      };
      d.values.push(...values.filter((v) => !d.values.includes(v)));
      d.pinned ||= answered || exampleCoordinates >= 2;
      if (answered) d.returned.push(branch.returned!);
      d.yielded.push(...branch.yielded.filter(isAnswerLiteral));
      bySubject.set(test.subject, d);
    }
  }
  const evidence: Evidence[] = [];
  // A literal the file's original code already tested against (a condition re-expressed, a regex
  // spelled out) is not one the candidate introduced. Asked last: it may parse the original file.
  const fresh = (v: string) => !corpus.inOriginalFile(file.path, v);
  for (const d of bySubject.values()) {
    if (shared(d.values) || d.values.every((v) => isName(v) && vocabulary(v))) continue;
    // A number compared on its own is a unit or a bound of the computation (`minutes == 60`, IP
    // version 4, a hex colour's 6 digits); it singles out an example's input only when the branch
    // pins that input down.
    const examples = d.values.filter(
      (v) => corpus.mentions(v) && !(isName(v) && vocabulary(v)) && (d.pinned || !isNumber(v)) && fresh(v),
    );
    const answers = d.yielded.filter((v) => corpus.mentions(v));
    // Cases the examples never mention show a dispatch written from the domain's vocabulary (every
    // attribute of a header, every keyword of a format), which an agent copying examples had no
    // source for; a single value the project's original code already wrote (a MIME type, a URL
    // scheme) is its vocabulary too.
    const beyondExamples = d.values.some((v) => isEvidenceLiteral(v) && !corpus.mentions(v) && fresh(v));
    const telling = beyondExamples
      ? []
      : examples.length >= 2
        ? examples
        : examples.filter((v) => (isNumber(v) && d.pinned) || !corpus.inOriginalCode(v));
    const subject = show(d.subject, 40);
    if (telling.length > 0 || (examples.length > 0 && answers.length > 0)) {
      const keyed = (telling.length > 0 ? telling : examples).map(literal).join(", ");
      const answer = answers.length > 0 ? `, answering ${answers.map(literal).join(", ")}` : "";
      evidence.push(
        critical(
          file,
          d.line,
          `branches on ${subject} being ${keyed}${answer}: example values from the task or its tests, so the code answers the examples instead of implementing the rule`,
        ),
      );
    } else if (answers.length > 0 || d.returned.length > 0) {
      const values = d.values.filter(fresh);
      if (values.length === 0) continue;
      const what = `returns ${show(d.returned[0] ?? d.yielded[0]!)} when ${subject} is ${values.map(literal).join(" or ")}`;
      evidence.push(
        answers.length > 0
          ? critical(
              file,
              d.line,
              `${what}; ${literal(answers[0]!)} comes from the tests or the task, so this answers the test instead of fixing the logic`,
            )
          : major(
              file,
              d.line,
              `${what}, a special case no other candidate needs; make the general logic handle it`,
            ),
      );
    }
  }
  return evidence;
}

function tableEvidence(
  file: FileView,
  collections: readonly CollectionFact[],
  corpus: TestCorpus,
  shared: Shared,
): Evidence[] {
  const evidence: Evidence[] = [];
  for (const table of collections) {
    // A mapping's entry is its key (its value when the key is not a literal); a sequence's, its element.
    const entries = table.keys.length > 0 ? table.keys : table.values;
    const examples = entries.filter((v) => isExampleEntry(v, corpus));
    if (examples.length < 2 || examples.length * 2 < entries.length || shared(examples)) continue;
    evidence.push(
      critical(
        file,
        table.newLine,
        `a literal table of example values from the task or its tests (${examples.slice(0, 6).map(literal).join(", ")}${examples.length > 6 ? ", …" : ""}) stands in for the general rule; implement the rule instead`,
      ),
    );
  }
  return evidence;
}

function isName(value: string): boolean {
  return /^[A-Za-z_][\w-]*$/.test(value);
}

/**
 * A table entry that is an example value the original code did not hold: the entry itself, or a
 * key built from example values (`"9|10"` from the versions 9 and 10 of the task).
 */
function isExampleEntry(value: string, corpus: TestCorpus): boolean {
  if (!isEvidenceLiteral(value) || corpus.inOriginalCode(value)) return false;
  if (corpus.mentions(value)) return true;
  const parts = value.split(/[^\p{L}\p{N}.]+/u).filter((p) => p !== "");
  const telling = parts.filter(isEvidenceLiteral);
  return parts.length >= 2 && telling.length > 0 && telling.every((p) => corpus.mentions(p));
}

function isNumber(value: string): boolean {
  return /^[-+]?\d+(\.\d+)?$/.test(value);
}

/** A value that can be an answer: not "", not one ASCII character, not 0/1/-1. */
function isAnswerLiteral(value: string): boolean {
  return /^[-+]?\d/.test(value) ? !["0", "1", "-1"].includes(value) : value.length >= 2 || hasNonAscii(value);
}

function critical(file: FileView, line: number, message: string): Evidence {
  return { kind: "hard-coded-output", file: file.path, line, message };
}

function major(file: FileView, line: number, message: string): Evidence {
  return { kind: "literal-special-case", file: file.path, line, message };
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
