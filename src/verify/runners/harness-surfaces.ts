import { builtinModules } from "node:module";
/**
 * The harness of the JavaScript runners, as the objects the Node.js guard watches (guards/node-guard.cjs,
 * docs/security.md §7): the functions through which tests are declared, run, asserted and reported. A
 * function of one of them replaced by a function defined in code under test is a violation, whatever the
 * attack does with it (a no-op'd assertion, a wrapped `runTest` that reads the running test's body, a
 * rewritten event). Declared, not recognised in code: each runner adapter declares its own framework's
 * objects (`TestRunner.harness`), each assertion library its own (`ASSERTION_LIBRARIES`), and a run
 * watches those of its adapter plus those of the libraries its hidden tests import (`jsHarness`).
 *
 * Where an object is found (`from`):
 * - `{builtin}`: a Node built-in module, `globalThis` or `process` (`process.stdout`), in every process
 *   of the run; `when: "test-child"` only in node:test's per-file children;
 * - `{module, main}`: a package's CommonJS module file, found by the guard in require.cache as soon as it
 *   has loaded;
 * - `{module}`: a library's exports as the tests import it, and `{realm, package?}`: the test realm's
 *   global object; both handed to the guard by gagar's test wrappers and reporters (`handOffLines`),
 *   since jest runs tests in a realm of their own, and ES modules are in no cache the guard can read;
 * - `{imported, by}`: any other package a hidden test module imports (supertest, sinon, a test helper
 *   package): the guard resolves the specifier from that module's folder, never loads it, and watches
 *   its exports once the program has loaded it through require (CommonJS only). Nothing says what such
 *   a package is to the tests, and code under test may patch it honestly (an instrumentation library
 *   patches what its tests import), so a function of code under test in its slots is ambiguous.
 * A path element "@@name" is `Symbol.for(name)`.
 */

export type HarnessSource =
  | { builtin: string; when?: "test-child" }
  | { module: string; main?: string }
  | { realm: true; package?: string }
  | { imported: string; by: string };

export interface HarnessObject {
  /** How a finding names it ("mocha.Runner.prototype"). */
  label: string;
  from: HarnessSource;
  /** Property path from where it is found to the object. */
  path: string[];
  /** The keys watched; default: all its own keys. */
  keys?: string[];
  /** Whether functions it inherits (below Object.prototype) are watched too, as it resolves them. */
  inherited?: boolean;
  /** It carries results to the runner: a proxy put in a slot there is judged too (by its traps). */
  channel?: boolean;
}

export interface AssertionLibrary {
  /** The module specifier tests import it by. */
  module: string;
  objects: HarnessObject[];
}

/** What every JavaScript run's assertions and reporting go through in Node itself. */
export const NODE_HARNESS: readonly HarnessObject[] = [
  { label: "assert", from: { builtin: "node:assert" }, path: [] },
  { label: "assert.strict", from: { builtin: "node:assert" }, path: ["strict"] },
  { label: "util", from: { builtin: "node:util" }, path: [], keys: ["isDeepStrictEqual"] },
  { label: "JSON", from: { builtin: "globalThis" }, path: ["JSON"], keys: ["stringify", "parse"] },
  { label: "Object", from: { builtin: "globalThis" }, path: ["Object"], keys: ["is"] },
  {
    label: "EventEmitter.prototype",
    from: { builtin: "node:events" },
    path: ["EventEmitter", "prototype"],
    keys: ["emit"],
  },
];

/** The same objects of a test realm of its own (jest's sandbox). */
const REALM_BUILTINS: readonly HarnessObject[] = [
  { label: "JSON", from: { realm: true }, path: ["JSON"], keys: ["stringify", "parse"] },
  { label: "Object", from: { realm: true }, path: ["Object"], keys: ["is"] },
];

function chaiObjects(from: HarnessSource): HarnessObject[] {
  return [
    { label: "chai", from, path: [], keys: ["use", "expect", "should", "assert", "Assertion", "util"] },
    { label: "chai.Assertion", from, path: ["Assertion"] },
    { label: "chai.Assertion.prototype", from, path: ["Assertion", "prototype"] },
    { label: "chai.assert", from, path: ["assert"] },
    { label: "chai.util", from, path: ["util"] },
  ];
}

/** The matchers of jest's `expect` (and vitest's jest-compatible ones): kept on the realm's global. */
const JEST_MATCHERS = "@@$$jest-matchers-object";

export const ASSERTION_LIBRARIES: readonly AssertionLibrary[] = [
  {
    module: "chai",
    // chai 4 is CommonJS (lib/chai.js); chai 5 on is an ES module, handed over by the wrappers.
    objects: [...chaiObjects({ module: "chai", main: "lib/chai.js" }), ...chaiObjects({ module: "chai" })],
  },
  {
    module: "expect",
    objects: [
      ...[{ module: "expect", main: "build/index.js" }, { module: "expect" }].flatMap((from) => [
        { label: "expect", from, path: ["expect"] },
        { label: "expect", from, path: ["default"] },
      ]),
      {
        label: "expect matchers",
        from: { realm: true, package: "expect" },
        path: [JEST_MATCHERS, "matchers"],
      },
    ],
  },
  {
    module: "should",
    objects: [{ module: "should", main: "cjs/should.js" }, { module: "should" }].flatMap((from) => [
      { label: "should", from, path: [] },
      { label: "should.Assertion", from, path: ["Assertion"] },
      { label: "should.Assertion.prototype", from, path: ["Assertion", "prototype"] },
    ]),
  },
];

/** mocha's classes (from its main module, whose exports hold them), its runner and its globals. */
export const MOCHA_HARNESS: readonly HarnessObject[] = [
  ...[
    ["mocha", ["prototype"]],
    ["mocha.Runner", ["Runner"]],
    ["mocha.Runner.prototype", ["Runner", "prototype"]],
    ["mocha.Runnable.prototype", ["Runnable", "prototype"]],
    ["mocha.Test.prototype", ["Test", "prototype"]],
    ["mocha.Hook.prototype", ["Hook", "prototype"]],
    ["mocha.Suite.prototype", ["Suite", "prototype"]],
    ["mocha.Context.prototype", ["Context", "prototype"]],
  ].map(([label, path]) => ({
    label: label as string,
    from: { module: "mocha", main: "lib/mocha.js" },
    path: path as string[],
    inherited: true,
  })),
  {
    label: "mocha's globals",
    from: { realm: true, package: "mocha" },
    path: [],
    keys: [
      "describe",
      "context",
      "it",
      "specify",
      "before",
      "after",
      "beforeEach",
      "afterEach",
      "xdescribe",
      "xcontext",
      "xit",
      "xspecify",
      "suite",
      "test",
      "setup",
      "teardown",
      "suiteSetup",
      "suiteTeardown",
    ],
  },
];

const JEST_GLOBALS = [
  "expect",
  "test",
  "it",
  "describe",
  "beforeEach",
  "afterEach",
  "beforeAll",
  "afterAll",
  "fit",
  "fdescribe",
  "xit",
  "xtest",
  "xdescribe",
];

/** jest's globals and `expect` live in each test file's own realm (jest-circus and expect loaded there). */
export const JEST_HARNESS: readonly HarnessObject[] = [
  ...REALM_BUILTINS,
  { label: "jest's globals", from: { realm: true, package: "jest-circus" }, path: [], keys: JEST_GLOBALS },
  { label: "expect", from: { realm: true, package: "expect" }, path: ["expect"] },
  { label: "expect matchers", from: { realm: true, package: "expect" }, path: [JEST_MATCHERS, "matchers"] },
];

/**
 * vitest's `expect` is chai with jest-compatible methods on `chai.Assertion.prototype`; its workers send
 * results to the main process over `process.send` (forks) or a MessagePort (threads).
 */
export const VITEST_HARNESS: readonly HarnessObject[] = [
  ...chaiObjects({ module: "vitest" }).map((o) => ({
    ...o,
    label: `vitest ${o.label}`,
    path: ["chai", ...o.path],
  })),
  { label: "vitest expect", from: { module: "vitest" }, path: ["expect"] },
  { label: "vitest assert", from: { module: "vitest" }, path: ["assert"] },
  {
    label: "expect matchers",
    from: { realm: true, package: "@vitest/expect" },
    path: [JEST_MATCHERS, "matchers"],
  },
  { label: "process", from: { builtin: "process" }, path: [], keys: ["send"], channel: true },
  {
    label: "MessagePort.prototype",
    from: { builtin: "node:worker_threads" },
    path: ["MessagePort", "prototype"],
    keys: ["postMessage"],
    channel: true,
  },
];

/**
 * node:test's per-file children report on their stdout (node:test's parent reads it): the stream and
 * what it writes through are the result channel there.
 */
export const NODE_TEST_HARNESS: readonly HarnessObject[] = [
  { label: "node:test", from: { builtin: "node:test", when: "test-child" }, path: [] },
  {
    label: "process.stdout",
    from: { builtin: "process.stdout", when: "test-child" },
    path: [],
    keys: ["write", "_write", "_writev"],
    channel: true,
  },
  {
    label: "stream.Writable.prototype",
    from: { builtin: "node:stream", when: "test-child" },
    path: ["Writable", "prototype"],
    keys: ["write", "_write", "_writev", "end"],
    channel: true,
  },
  {
    label: "stream.Readable.prototype",
    from: { builtin: "node:stream", when: "test-child" },
    path: ["Readable", "prototype"],
    keys: ["pipe", "push"],
    channel: true,
  },
  {
    label: "net.Socket.prototype",
    from: { builtin: "node:net", when: "test-child" },
    path: ["Socket", "prototype"],
    keys: ["write", "_write", "_writev", "_writeGeneric"],
    channel: true,
  },
];

const JS_MODULE_SPECIFIER =
  /(?:\brequire\(\s*|\bimport\(\s*|^\s*import\s+(?:[^'"]*?\s+from\s+)?|^\s*export\s+[^'"]*?\s+from\s+)(["'])([^"']+)\1/gm;

function specifiersOf(content: string): Set<string> {
  return new Set([...content.matchAll(JS_MODULE_SPECIFIER)].map((m) => m[2]!));
}

/** The assertion libraries among the modules a test module imports. */
export function importedLibraries(content: string): AssertionLibrary[] {
  const specifiers = specifiersOf(content);
  return ASSERTION_LIBRARIES.filter((library) => specifiers.has(library.module));
}

/** The runners' own packages: their objects are declared by the adapters (or are the runner itself). */
const RUNNER_PACKAGES = new Set(["mocha", "jest", "@jest/globals", "vitest", "node:test", "test"]);
const BUILTINS = new Set(builtinModules);

/**
 * The other packages a test module imports: bare specifiers that are not Node's, not a runner's and
 * not a declared assertion library (`{imported}` sources above).
 */
export function importedPackages(content: string): string[] {
  const declared = new Set(ASSERTION_LIBRARIES.map((l) => l.module));
  return [...specifiersOf(content)]
    .filter(
      (s) =>
        !/^[./]/.test(s) &&
        !s.startsWith("node:") &&
        !BUILTINS.has(s) &&
        !RUNNER_PACKAGES.has(s) &&
        !declared.has(s),
    )
    .sort();
}

/**
 * What a run's guard watches: Node's own, the adapter's, those of every assertion library a hidden
 * test module imports, and the other packages they import; `modules` are the libraries' specifiers,
 * which the wrappers hand over.
 */
export function jsHarness(
  runnerObjects: readonly HarnessObject[],
  sources: ReadonlyMap<string, string> | undefined,
): { objects: HarnessObject[]; modules: string[] } {
  const libraries = new Map<string, AssertionLibrary>();
  const packages = new Map<string, HarnessObject>();
  for (const [file, content] of sources ?? []) {
    for (const library of importedLibraries(content)) libraries.set(library.module, library);
    for (const name of importedPackages(content))
      if (!packages.has(name))
        packages.set(name, { label: name, from: { imported: name, by: file }, path: [] });
  }
  return {
    objects: [
      ...NODE_HARNESS,
      ...runnerObjects,
      ...[...libraries.values()].flatMap((l) => l.objects),
      ...packages.values(),
    ],
    modules: [...libraries.keys()].sort(),
  };
}

const GUARD = 'process[Symbol.for("gagar.guard")]';

/**
 * Statements that hand the test realm and the assertion libraries `modules` to the guard, for a module
 * of the given style (`require` or `await import` loads them; `require.resolve` says where a package
 * lives), and register `afterEach` (the framework's hook, by the name in scope; null for none) to ask
 * for a checkpoint after every test. `late`: they run after the test files loaded (and the code under
 * test with them), so the guard judges what it is handed at once. Without a guard in the process they
 * do nothing; they never throw.
 */
export function handOffLines(
  style: "require" | "import",
  modules: readonly string[],
  afterEach: string | null,
  late: boolean,
) {
  const load =
    style === "require"
      ? `guard.watchModule(m, require(m), require.resolve(m), ${late});`
      : `guard.watchModule(m, await import(m), undefined, ${late});`;
  return [
    `{ const guard = ${GUARD};`,
    "  if (guard) {",
    `    guard.watchRealm(globalThis, ${late});`,
    `    for (const m of ${JSON.stringify(modules)}) { try { ${load} } catch {} }`,
    ...(afterEach ? [`    ${afterEach}(() => guard.checkpoint());`] : []),
    "  }",
    "}",
  ];
}
