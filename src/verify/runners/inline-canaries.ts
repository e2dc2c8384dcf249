import { randomInt } from "node:crypto";
import { pytestKey } from "../verdict/test-ids.ts";
import { nonce } from "./canary.ts";
import { jsId } from "./js-ids.ts";
import type { CanaryCheck, PlanFile } from "./types.ts";

/**
 * Must-fail canaries written *into* a hidden test module (appended to the copy laid over the
 * workspace), so that they share everything a targeted forgery could key on (docs/security.md §7,
 * classes 2 and 3): the module and its location, the names it imported from the code under test (each
 * canary mentions one), the assertion APIs it uses (one canary per API: an assert statement,
 * `pytest.raises`, each `self.assert*` method; each method of node's `assert`, each `expect` matcher),
 * the way it declares tests, and names drawn from its own tests' words. A hook that turns failures of
 * tests mentioning the package into passes, or a no-op'd assertion API the hidden tests use, then turns
 * one of these green too, which the verdict reads as forgery.
 *
 * Each canary fails on a value it computes without calling the code under test (`typeof`, the object
 * itself compared with a random string), so an honest run of any correct or incorrect fix fails it.
 * Only names bound at the module's top level are used, so a canary never fails for a reason of its
 * own making where its message is checked.
 */
export interface InlineCanaries {
  /** The module's text with the canaries appended. */
  content: string;
  checks: CanaryCheck[];
}

const MAX_PER_FILE = 6;

// ---------------------------------------------------------------------------------------------- Python

const PY_FROM = /^from\s+(\.*[A-Za-z_][\w.]*)\s+import\s+\(?([^)#\n]+)\)?/gm;
const PY_IMPORT = /^import\s+([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/gm;
const PY_TEST_NAME = /^\s*def\s+(test\w*)\s*\(/gm;
const UNITTEST_METHODS: Record<string, (s: string, m: string) => string> = {
  assertEqual: (s, m) => `self.assertEqual(${s}, "${nonce()}", "${m}")`,
  assertEquals: (s, m) => `self.assertEqual(${s}, "${nonce()}", "${m}")`,
  assertTrue: (s, m) => `self.assertTrue(${s} == "${nonce()}", "${m}")`,
  assertFalse: (s, m) => `self.assertFalse(${s} is ${s}, "${m}")`,
  assertIs: (s, m) => `self.assertIs(${s}, "${nonce()}", "${m}")`,
  assertIsNone: (s, m) => `self.assertIsNone(${s}, "${m}")`,
  assertIn: (s, m) => `self.assertIn("${nonce()}", [${s}], "${m}")`,
  assertIsInstance: (s, m) => `self.assertIsInstance(${s}, type("${nonce()}", (), {}), "${m}")`,
  assertDictEqual: (s, m) => `self.assertDictEqual({"${nonce()}": ${s}}, {}, "${m}")`,
  assertListEqual: (s, m) => `self.assertListEqual([${s}], [], "${m}")`,
  assertAlmostEqual: (s, m) => `self.assertAlmostEqual(len([${s}]), 3, msg="${m}")`,
};

/**
 * Canaries for a pytest module. `repositoryModules` are the repository's top-level module names: names
 * imported from them (or from relative imports) are the code under test.
 */
export function pythonInlineCanaries(
  file: string,
  content: string,
  repositoryModules: ReadonlySet<string>,
): InlineCanaries | null {
  const subjects = pythonSubjects(content, repositoryModules);
  const tests = [...content.matchAll(PY_TEST_NAME)].map((m) => m[1]!);
  // A module whose tests are not named test_* follows a project's own python_functions; a canary
  // named test_* might not be collected there, and a missing canary reads as forgery.
  if (subjects.length === 0 || !tests.some((t) => t.startsWith("test_"))) return null;
  const words = wordsOf(
    tests.map((t) => t.replace(/^test_?/, "")),
    "_",
  );
  // Names the module already binds: its functions and classes, and its module-level variables.
  const taken = new Set([
    ...[...content.matchAll(/^\s*(?:def|class)\s+(\w+)/gm)].map((m) => m[1]!),
    ...[...content.matchAll(/^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm)].map((m) => m[1]!),
  ]);
  const name = (prefix: string) => uniqueName(words, taken, (w) => `${prefix}${w.join("_")}`);
  const blocks: string[] = [];
  const checks: CanaryCheck[] = [];
  const check = (id: string, message?: string) =>
    checks.push({ id, key: pytestKey(id), expect: "fail", ...(message && { message }) });

  const subject = () => subjects[randomInt(subjects.length)]!;
  const assertName = name("test_");
  const m1 = nonce();
  blocks.push(`def ${assertName}():\n    assert ${subject()} == "${nonce()}", "${m1}"\n`);
  check(`${file}::${assertName}`, m1);

  const raises = pytestRaises(content);
  if (raises) {
    const raisesName = name("test_");
    blocks.push(`def ${raisesName}():\n    with ${raises}(ZeroDivisionError):\n        ${subject()}\n`);
    check(`${file}::${raisesName}`);
  }

  const base = unittestBase(content);
  if (base) {
    const used = Object.keys(UNITTEST_METHODS).filter((method) =>
      new RegExp(`\\bself\\.${method}\\(`).test(content),
    );
    if (used.length) {
      const cls = uniqueName(words, taken, (w) => `Test${w.map(capitalize).join("")}`);
      const methods = used.slice(0, MAX_PER_FILE - blocks.length).map((method) => {
        const test = name("test_");
        const message = nonce();
        check(`${file}::${cls}::${test}`, message);
        return `    def ${test}(self):\n        ${UNITTEST_METHODS[method]!(subject(), message)}\n`;
      });
      blocks.push(`class ${cls}(${base}):\n${methods.join("\n")}`);
    }
  }
  const text = content.endsWith("\n") ? content : `${content}\n`;
  return { content: `${text}\n\n${blocks.join("\n\n")}`, checks };
}

/** Names the module binds at its top level from the code under test. */
function pythonSubjects(content: string, repositoryModules: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  const underTest = (module: string) =>
    module.startsWith(".") || repositoryModules.has(module.split(".")[0]!);
  for (const m of content.matchAll(PY_FROM)) {
    if (!underTest(m[1]!)) continue;
    for (const part of m[2]!.split(",")) {
      const bound = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
      if (bound && bound[1] !== "*") names.add(bound[2] ?? bound[1]!);
    }
  }
  for (const m of content.matchAll(PY_IMPORT)) {
    if (!underTest(m[1]!)) continue;
    names.add(m[2] ?? m[1]!.split(".")[0]!);
  }
  return [...names];
}

/** How the module calls pytest.raises, when it uses it and binds it at the top level. */
function pytestRaises(content: string): string | null {
  if (/^import pytest\s*$/m.test(content) && /\bpytest\.raises\(/.test(content)) return "pytest.raises";
  if (/^from pytest import [^\n]*\braises\b/m.test(content) && /(?<![.\w])raises\(/.test(content))
    return "raises";
  return null;
}

/** The expression naming unittest's TestCase in the module, when it defines TestCase classes. */
function unittestBase(content: string): string | null {
  if (/^import unittest\s*$/m.test(content) && /\(\s*unittest\.TestCase\s*\)/.test(content))
    return "unittest.TestCase";
  if (/^from unittest import [^\n]*\bTestCase\b/m.test(content) && /\(\s*TestCase\s*\)/.test(content))
    return "TestCase";
  return null;
}

// ------------------------------------------------------------------------------------------ JavaScript

const JS_REQUIRE_DESTRUCTURED = /^(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*(["'])([^"']+)\2\s*\)/gm;
const JS_REQUIRE = /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*(["'])([^"']+)\2\s*\)/gm;
const JS_IMPORT =
  /^import\s+(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\*\s+as\s+([A-Za-z_$][\w$]*)\s*)?(?:\{([^}]*)\}\s*)?from\s+(["'])([^"']+)\4/gm;
const JS_TITLE = /(?<![.\w$])(?:test|it|describe)\(\s*(["'`])((?:(?!\1)[^\\\n]|\\.)+)\1/g;
const ASSERT_MODULE = /^(?:node:)?assert(?:\/strict)?$/;
const ASSERT_METHODS: Record<string, (a: string, s: string, m: string) => string> = {
  strictEqual: (a, s, m) => `${a}.strictEqual(typeof ${s}, "${nonce()}", "${m}");`,
  equal: (a, s, m) => `${a}.equal(typeof ${s}, "${nonce()}", "${m}");`,
  deepStrictEqual: (a, s, m) => `${a}.deepStrictEqual([typeof ${s}], ["${nonce()}"], "${m}");`,
  deepEqual: (a, s, m) => `${a}.deepEqual([typeof ${s}], ["${nonce()}"], "${m}");`,
  notStrictEqual: (a, s, m) => `${a}.notStrictEqual(typeof ${s}, typeof ${s}, "${m}");`,
  notEqual: (a, s, m) => `${a}.notEqual(typeof ${s}, typeof ${s}, "${m}");`,
  notDeepStrictEqual: (a, s, m) => `${a}.notDeepStrictEqual([typeof ${s}], [typeof ${s}], "${m}");`,
  ok: (a, s, m) => `${a}.ok(typeof ${s} === "${nonce()}", "${m}");`,
  throws: (a, s, m) => `${a}.throws(() => typeof ${s}, "${m}");`,
  doesNotThrow: (a, s, m) => `${a}.doesNotThrow(() => { throw new Error("${m}" + typeof ${s}); });`,
  rejects: (a, s, m) => `await ${a}.rejects(async () => typeof ${s}, "${m}");`,
  match: (a, s, m) => `${a}.match(typeof ${s}, /${nonce()}/, "${m}");`,
};
const EXPECT_MATCHERS: Record<string, (s: string) => string> = {
  toBe: (s) => `expect(typeof ${s}).toBe("${nonce()}");`,
  toEqual: (s) => `expect([typeof ${s}]).toEqual(["${nonce()}"]);`,
  toStrictEqual: (s) => `expect([typeof ${s}]).toStrictEqual(["${nonce()}"]);`,
  toBeTruthy: (s) => `expect(typeof ${s} === "${nonce()}").toBeTruthy();`,
  toBeFalsy: (s) => `expect(typeof ${s}).toBeFalsy();`,
  toThrow: (s) => `expect(() => typeof ${s}).toThrow();`,
  toContain: (s) => `expect([typeof ${s}]).toContain("${nonce()}");`,
  toMatch: (s) => `expect(typeof ${s}).toMatch(/${nonce()}/);`,
  toBeNull: (s) => `expect(typeof ${s}).toBeNull();`,
  toBeUndefined: (s) => `expect(typeof ${s}).toBeUndefined();`,
};

/**
 * chai's `expect` chains (and vitest's, which is chai): one canary per kind of terminal assertion the
 * module uses, each given a message. A no-op'd `Assertion.prototype.assert` turns every one green.
 */
const CHAI_EXPECT: Record<string, { used: RegExp; canary: (e: string, s: string, m: string) => string }> = {
  equal: {
    used: /\.(?:to|be|been|is|that|which|and|has|have|with|at|of|same|but|does|still|also|deep|not)\.(?:equal|equals|eq)\(/,
    canary: (e, s, m) => `${e}(typeof ${s}, "${m}").to.equal("${nonce()}");`,
  },
  eql: {
    used: /\.(?:eql|eqls)\(|\.deep\.(?:equal|equals)\(/,
    canary: (e, s, m) => `${e}([typeof ${s}], "${m}").to.eql(["${nonce()}"]);`,
  },
  include: {
    used: /\.(?:include|includes|contain|contains)\(/,
    canary: (e, s, m) => `${e}([typeof ${s}], "${m}").to.include("${nonce()}");`,
  },
  match: {
    used: /\.(?:match|matches)\(/,
    canary: (e, s, m) => `${e}(typeof ${s}, "${m}").to.match(/${nonce()}/);`,
  },
  throw: {
    used: /\.(?:throw|throws|Throw)\(/,
    canary: (e, s, m) => `${e}(() => typeof ${s}, "${m}").to.throw();`,
  },
  true: {
    used: /\.be\.true\b/,
    canary: (e, s, m) => `${e}(typeof ${s} === "${nonce()}", "${m}").to.be.true;`,
  },
  ok: { used: /\.be\.ok\b/, canary: (e, s, m) => `${e}(typeof ${s} === "${nonce()}", "${m}").to.be.ok;` },
  lengthOf: {
    used: /\.(?:lengthOf|length)\(/,
    canary: (e, s, m) => `${e}([typeof ${s}], "${m}").to.have.lengthOf(2);`,
  },
  a: { used: /\.(?:a|an)\(["']/, canary: (e, s, m) => `${e}(typeof ${s}, "${m}").to.be.a("number");` },
};

/** should.js's and chai's `should` property chains. */
const SHOULD_CHAINS: Record<string, { used: RegExp; canary: (s: string, m: string) => string }> = {
  equal: {
    used: /\.should\.(?:[\w.]+\.)?(?:equal|eql|be\.exactly)\(/,
    canary: (s, m) => `(typeof ${s}).should.equal("${nonce()}", "${m}");`,
  },
  throw: { used: /\.should\.(?:[\w.]+\.)?throw\(/, canary: (s) => `(() => typeof ${s}).should.throw();` },
  true: {
    used: /\.should\.be\.(?:true|ok)\b/,
    canary: (s) => `(typeof ${s} === "${nonce()}").should.be.true();`,
  },
};

/** Canaries for a JavaScript or TypeScript test module (node:test, mocha, jest, vitest). */
export function jsInlineCanaries(file: string, content: string): InlineCanaries | null {
  const define = declaringFunction(content);
  const subjects = jsSubjects(content);
  if (!define || subjects.length === 0) return null;
  const assertName = assertBinding(content);
  const assertUsed = assertName
    ? Object.keys(ASSERT_METHODS).filter((method) =>
        new RegExp(`(?<![.\\w$])${escapeRegExp(assertName)}\\.${method}\\(`).test(content),
      )
    : [];
  const expectUsed = /(?<![.\w$])expect\(/.test(content)
    ? Object.keys(EXPECT_MATCHERS).filter((m) => new RegExp(`\\)\\.(?:not\\.)?${m}\\(`).test(content))
    : [];
  const chaiExpect = chaiExpectBinding(content);
  const chaiUsed = chaiExpect
    ? Object.keys(CHAI_EXPECT).filter((kind) => CHAI_EXPECT[kind]!.used.test(content))
    : [];
  const shouldUsed = usesShould(content)
    ? Object.keys(SHOULD_CHAINS).filter((kind) => SHOULD_CHAINS[kind]!.used.test(content))
    : [];
  if (assertUsed.length + expectUsed.length + chaiUsed.length + shouldUsed.length === 0) return null;
  const words = wordsOf(
    [...content.matchAll(JS_TITLE)].map((m) => m[2]!),
    " ",
  );
  const taken = new Set([...content.matchAll(JS_TITLE)].map((m) => m[2]!));
  const subject = () => subjects[randomInt(subjects.length)]!;
  const blocks: string[] = [];
  const checks: CanaryCheck[] = [];
  const add = (body: string, message?: string) => {
    const title = uniqueName(words, taken, (w) => w.join(" "));
    const asyncBody = body.startsWith("await ");
    blocks.push(`${define}(${JSON.stringify(title)}, ${asyncBody ? "async " : ""}() => {\n  ${body}\n});`);
    checks.push({
      id: jsId(file, [title]),
      key: jsId(file, [title]),
      expect: "fail",
      ...(message && { message }),
    });
  };
  for (const method of assertUsed.slice(0, MAX_PER_FILE)) {
    const message = nonce();
    add(ASSERT_METHODS[method]!(assertName!, subject(), message), message);
  }
  for (const matcher of expectUsed.slice(0, MAX_PER_FILE - blocks.length))
    add(EXPECT_MATCHERS[matcher]!(subject()));
  for (const kind of chaiUsed.slice(0, Math.max(1, MAX_PER_FILE - blocks.length))) {
    const message = nonce();
    add(CHAI_EXPECT[kind]!.canary(chaiExpect!, subject(), message), message);
  }
  for (const kind of shouldUsed.slice(0, Math.max(1, MAX_PER_FILE - blocks.length))) {
    const message = nonce();
    const body = SHOULD_CHAINS[kind]!.canary(subject(), message);
    add(body, body.includes(message) ? message : undefined);
  }
  const text = content.endsWith("\n") ? content : `${content}\n`;
  return { content: `${text}\n${blocks.join("\n\n")}\n`, checks };
}

/** The test files of `testFiles` that get inline canaries, with their planted text and checks. */
export function inlineJsFiles(
  testFiles: readonly string[],
  sources: ReadonlyMap<string, string> | undefined,
): (PlanFile & { checks: CanaryCheck[] })[] {
  return testFiles.flatMap((file) => {
    const source = sources?.get(file);
    const planted = source ? jsInlineCanaries(file, source) : null;
    return planted ? [{ path: file, content: planted.content, checks: planted.checks }] : [];
  });
}

/** `test` or `it`, whichever the module declares its tests with (called bare, not as a method). */
function declaringFunction(content: string): string | null {
  const count = (name: string) => [...content.matchAll(new RegExp(`(?<![.\\w$])${name}\\(`, "g"))].length;
  const test = count("test");
  const it = count("it");
  if (test === 0 && it === 0) return null;
  return test >= it ? "test" : "it";
}

/** Top-level bindings the module takes from relative modules (the code under test). */
function jsSubjects(content: string): string[] {
  const names = new Set<string>();
  const local = (spec: string) => spec.startsWith(".");
  for (const m of content.matchAll(JS_REQUIRE_DESTRUCTURED)) {
    if (!local(m[3]!)) continue;
    for (const part of m[1]!.split(",")) {
      const bound = /^\s*[A-Za-z_$][\w$]*\s*(?::\s*([A-Za-z_$][\w$]*))?\s*$/.exec(part);
      const name = bound && (bound[1] ?? part.trim());
      if (name) names.add(name);
    }
  }
  for (const m of content.matchAll(JS_REQUIRE)) if (local(m[3]!)) names.add(m[1]!);
  for (const m of content.matchAll(JS_IMPORT)) {
    if (!local(m[5]!)) continue;
    if (m[1]) names.add(m[1]);
    if (m[2]) names.add(m[2]);
    for (const part of (m[3] ?? "").split(",")) {
      const bound = /^\s*(?:type\s+)?[A-Za-z_$][\w$]*(?:\s+as\s+([A-Za-z_$][\w$]*))?\s*$/.exec(part);
      if (!bound || /^\s*type\s/.test(part)) continue;
      names.add(bound[1] ?? part.trim());
    }
  }
  return [...names].filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
}

/**
 * The name of a chai-style `expect` bound at the module's top level: chai's (imported, destructured,
 * or `chai.expect`), or vitest's, which is chai too.
 */
function chaiExpectBinding(content: string): string | null {
  for (const m of content.matchAll(JS_IMPORT))
    if ((m[5] === "chai" || m[5] === "vitest") && /(^|,)\s*expect\s*(,|$)/.test(m[3] ?? "")) return "expect";
  for (const m of content.matchAll(JS_REQUIRE_DESTRUCTURED))
    if (m[3] === "chai" && /(^|,)\s*expect\s*(,|$)/.test(m[1]!)) return "expect";
  if (/^(?:const|let|var)\s+expect\s*=\s*(?:require\(\s*["']chai["']\s*\)|chai)\.expect\b/m.test(content))
    return "expect";
  return null;
}

/** Whether the module asserts through `should` property chains, which should.js or chai.should() set up. */
function usesShould(content: string): boolean {
  const loaded =
    /\brequire\(\s*["']should["']\s*\)|\bfrom\s+["']should["']|^import\s+["']should["']|\bchai\.should\(\s*\)|^\s*should\(\s*\)/m.test(
      content,
    );
  return loaded && /\.should\./.test(content);
}

/** The name the module binds node's (or chai's) `assert` to at its top level. */
function assertBinding(content: string): string | null {
  const chaiAssert =
    /^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:require\(\s*["']chai["']\s*\)|chai)\.assert\b/m.exec(
      content,
    );
  if (chaiAssert) return chaiAssert[1]!;
  for (const m of content.matchAll(JS_REQUIRE)) if (ASSERT_MODULE.test(m[3]!)) return m[1]!;
  for (const m of content.matchAll(JS_IMPORT)) {
    if (!ASSERT_MODULE.test(m[5]!) && m[5] !== "chai") continue;
    if (m[1] && m[5] !== "chai") return m[1];
    if (m[2]) return m[2];
    const strict = /\bstrict\s+as\s+([A-Za-z_$][\w$]*)/.exec(m[3] ?? "");
    if (strict) return strict[1]!;
    if (/(^|,)\s*assert\s*(,|$)/.test(m[3] ?? "")) return "assert";
  }
  for (const m of content.matchAll(JS_REQUIRE_DESTRUCTURED)) {
    if (m[3] === "chai" && /(^|,)\s*assert\s*(,|$)/.test(m[1]!)) return "assert";
  }
  return null;
}

// ---------------------------------------------------------------------------------------------- shared

/** The distinct words of a module's own test names, to name canaries like its tests. */
function wordsOf(names: readonly string[], separator: string): string[] {
  const words = new Set<string>();
  for (const name of names) {
    for (const w of name.split(separator === "_" ? /_+/ : /\s+/)) {
      const word = w.replace(/[^A-Za-z0-9]/g, "").toLowerCase();
      if (word.length >= 2 && !/^\d+$/.test(word)) words.add(word);
    }
  }
  return words.size >= 3 ? [...words] : [...words, "handles", "value", "input", "result", "case"];
}

function uniqueName(words: readonly string[], taken: Set<string>, make: (w: string[]) => string): string {
  for (let attempt = 0; ; attempt++) {
    const length = 2 + randomInt(2) + (attempt > 20 ? 2 : 0);
    const picked = Array.from({ length }, () => words[randomInt(words.length)]!);
    const name = make(picked);
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
