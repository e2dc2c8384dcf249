import { randomBytes, randomInt } from "node:crypto";
import { posix } from "node:path";
import type { CanaryCheck, TestPlan } from "./types.ts";

/**
 * Shared pieces of the canaries every adapter writes (docs/security.md §5.3, D3/D4):
 * - a **must-pass** test (catches runs that fail everything, or a report that is not this run's);
 * - **must-fail** tests with a random message, one per forgery channel the framework has: a plain
 *   assertion on ints (an outcome-rewriting hook turns it green), the library assertion API that
 *   candidates monkeypatch, and a bare `throw` (a patched harness).
 * A must-fail canary reported as passed, or missing from a report that claims success, means the result
 * is forged. Names are 12 random hex digits with no fixed prefix, so a blanket "make every test pass
 * except gagar's" hook has nothing to match on. Canaries run in the same process as the tests they
 * guard, so they see the same monkeypatching.
 */

export function nonce(): string {
  return randomBytes(6).toString("hex");
}

/** Two different ints and their sum, for assertions that must hold or fail. */
export function ints(): { a: number; b: number } {
  const a = randomInt(1000, 1_000_000);
  return { a, b: a + randomInt(1, 1000) };
}

/**
 * A wrapper module beside `testFile` that loads it and then declares `body` (canary tests), so that
 * frameworks which isolate each file (node:test, jest, vitest) run both in one context. Its name keeps
 * the test file's stem and suffix with a nonce inside (`stats.test.js` → `stats.<nonce>.test.js`),
 * so that a project's test-match patterns still select it.
 */
export function wrapperPath(testFile: string, tag: string): string {
  const dir = posix.dirname(testFile);
  const base = posix.basename(testFile);
  const dot = base.indexOf(".", 1);
  const name = dot < 0 ? `${base}.${tag}` : `${base.slice(0, dot)}.${tag}${base.slice(dot)}`;
  return dir === "." ? name : `${dir}/${name}`;
}

/** How a wrapper loads its test file: `import` for ES modules, `require` otherwise. */
export function loadStatement(testFile: string, esm: boolean): string {
  const spec = JSON.stringify(`./${posix.basename(testFile)}`);
  return esm ? `import ${spec};` : `require(${spec});`;
}

/** Substitutes `{name}` placeholders that form whole arguments or parts of them; `{tests}` expands to many. */
export function expandCommand(
  command: readonly string[],
  values: Record<string, string>,
  tests: readonly string[],
): string[] {
  return command.flatMap((arg) => {
    if (arg === "{tests}") return [...tests];
    return [arg.replace(/\{(junit|reporter|pass|fail|message)\}/g, (m, key: string) => values[key] ?? m)];
  });
}

/**
 * The JavaScript canaries node:test and mocha share: a must-pass, a must-fail through node's
 * `assert.strictEqual` and a bare `throw`, declared with `define` (`test` or `it`) and checked under the
 * ids `<idFile>::<name>`. The caller puts them after the lines that load `assert` and the tests.
 */
export function assertCanaries(define: string, idFile: string): { lines: string[]; checks: CanaryCheck[] } {
  const [pass, failAssert, failThrow] = [nonce(), nonce(), nonce()];
  const sum = ints();
  const assertion = ints();
  const [m1, m2] = [nonce(), nonce()];
  const lines = [
    `${define}(${JSON.stringify(pass)}, () => {`,
    `  assert.strictEqual(${sum.a} + ${sum.b}, ${sum.a + sum.b});`,
    "});",
    `${define}(${JSON.stringify(failAssert)}, () => {`,
    `  assert.strictEqual(${assertion.a}, ${assertion.b}, ${JSON.stringify(m1)});`,
    "});",
    `${define}(${JSON.stringify(failThrow)}, () => {`,
    `  throw new Error(${JSON.stringify(m2)});`,
    "});",
    "",
  ];
  const id = (name: string) => `${idFile}::${name}`;
  return {
    lines,
    checks: [
      { id: id(pass), key: id(pass), expect: "pass" },
      { id: id(failAssert), key: id(failAssert), expect: "fail", message: m1 },
      { id: id(failThrow), key: id(failThrow), expect: "fail", message: m2 },
    ],
  };
}

/** Shorter names are left alone: they would redact ordinary words. */
const MIN_NAME = 6;

/**
 * What identifies a plan's canaries in test output, as patterns: their ids and the names in them
 * (class and test), their messages, the files of their own the plan lays over the workspace (not the
 * hidden test modules they are appended to), and the random values written into them (12-hex nonces,
 * the ints of the assertions; of a hidden module, `sources` tells what was its own). The verifier's diagnostics drop every line that matches one
 * (output-tail.ts), so canary names never reach a user or a policy: a policy that learnt them could
 * pass the canaries and fail the rest on purpose.
 *
 * Inline canaries are named from the words of the module's own tests (`test_div_zero`, "zero
 * divisor"), so a name matches only where it stands alone: not inside a longer identifier
 * (`test_div_zero_more`), and a JavaScript title not inside a longer phrase ("rejects a zero
 * divisor"), which a real test's name would be.
 */
export function canaryNames(
  plan: TestPlan,
  hiddenTests: readonly string[],
  sources: ReadonlyMap<string, string> = new Map(),
): RegExp[] {
  const hidden = new Set(hiddenTests);
  const names = new Map<string, RegExp>();
  const add = (text: string | undefined, phrase: Phrase = "no") => {
    if (text && text.length >= MIN_NAME && !names.has(text)) names.set(text, standingAlone(text, phrase));
  };
  for (const run of plan.runs) {
    for (const canary of run.canaries) {
      // Past the file: the canary's own class and test names (canaries are never nested in a hidden
      // describe). A JavaScript title is words, and stands alone only as a whole phrase.
      const [file, ...parts] = canary.id.split("::");
      const js = !file!.endsWith(".py");
      add(canary.id, js ? "ends" : "no");
      add(canary.message);
      for (const name of parts) add(name, js ? "whole" : "no");
    }
  }
  for (const file of plan.files) {
    // A hidden test module with canaries appended (inline-canaries.ts) keeps its own, public name.
    if (!hidden.has(file.path)) {
      const base = posix.basename(file.path);
      for (const name of [file.path, base, base.replace(/\.[^.]+$/, "")]) add(name);
    }
    // Of a hidden test module, only what the canaries added (its own values are no canary's).
    const own = sources.get(file.path);
    const added =
      own !== undefined && file.content.startsWith(own) ? file.content.slice(own.length) : file.content;
    for (const token of added.match(/\b(?:[0-9a-f]{12}|\d{6,})\b/g) ?? []) add(token);
  }
  return [...names.values()];
}

/** `text` with every canary name in it (canaryNames) replaced by a marker: for a finding's message and file. */
export function maskCanaryNames(text: string, names: readonly RegExp[]): string {
  return names.reduce((t, name) => t.replace(new RegExp(name.source, "g"), "[a canary]"), text);
}

/** Whether a name is words that a longer phrase may hold: a title ("whole"), or an id ending in one ("ends"). */
type Phrase = "no" | "whole" | "ends";

/** `name` where it is not part of a longer identifier, nor, where it is words, of a longer phrase. */
function standingAlone(name: string, phrase: Phrase): RegExp {
  const text = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const before = phrase === "whole" ? "(?<!\\w)(?<!\\w )" : "(?<!\\w)";
  const after = phrase === "no" ? "(?!\\w)" : "(?! \\w)(?!\\w)";
  return new RegExp(`${before}${text}${after}`);
}
