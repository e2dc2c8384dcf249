import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ProcessRun, runPlanned, runProcess } from "../../../test/support/guarded-process.ts";
import { jsHarness, NODE_TEST_HARNESS } from "../runners/harness-surfaces.ts";
import { runnerNamed } from "../runners/registry.ts";

/**
 * The Node.js guard loaded as a run loads it (test/support/guarded-process.ts), in plain node processes on
 * the host: what it reports, and that it reports nothing about Node's own code and honest libraries.
 * The sandboxed runs are runners/contract.test-suite.ts and test/verify-adversarial.test.ts; behaviour
 * preservation over generated programs is node-guard.property.test.ts.
 */

const scratch = mkdtempSync(join(tmpdir(), "gagar-node-guard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NODE_TEST = jsHarness(NODE_TEST_HARNESS, undefined).objects;
const STATS = "const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;\nmodule.exports = { mean };\n";
const JS_TEST =
  'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { mean } = require("../lib/stats.js");\n\ntest("mean", () => {\n  assert.strictEqual(mean([2, 4]), 3);\n});\n\ntest("mocks stdout", (t) => {\n  const write = process.stdout.write;\n  process.stdout.write = () => true;\n  process.stdout.write = write;\n  Object.defineProperty(JSON, "parse", { value: JSON.parse, writable: true, configurable: true });\n});\n';

let count = 0;
function workspace(files: Record<string, string>): string {
  const dir = join(scratch, `ws-${count++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
  return dir;
}

/** `lib/stats.js` under node:test with the hidden test test/stats.test.js. */
function nodeTest(stats: string, test = JS_TEST): Promise<ProcessRun> {
  return runProcess({
    workspace: workspace({ "lib/stats.js": stats, "test/stats.test.js": test }),
    argv: [process.execPath, "--test", "--test-reporter=tap", "test/stats.test.js"],
    hidden: ["test/stats.test.js"],
    harness: NODE_TEST,
    guards: true,
  });
}

/** A script as code under test (lib/main.js) started by a hidden test module (test/main.test.js). */
function script(main: string, extra: Record<string, string> = {}, guards = true): Promise<ProcessRun> {
  return runProcess({
    workspace: workspace({
      "test/main.test.js": 'require("../lib/main.js");\n',
      "lib/main.js": main,
      ...extra,
    }),
    argv: [process.execPath, "test/main.test.js"],
    hidden: ["test/main.test.js"],
    harness: NODE_TEST,
    guards,
  });
}

const kinds = (run: ProcessRun) => run.violations.map((v) => v.kind);

describe("the Node.js guard", () => {
  it("starts in the runner and in node:test's child, and stays silent for honest code and the tests' own stubs", async () => {
    const run = await nodeTest(STATS);
    expect(run.stdout).toMatch(/# pass 2/);
    expect(run.started).toBe(true);
    expect(run.violations).toEqual([]);
    expect(run.ambiguous).toEqual([]);
  });

  it("reports code under test that reads the calling test, through the stack or another name for the file", async () => {
    const reads = `const fs = require("node:fs");\nconst mean = (xs) => {\n  const file = new Error().stack.split("\\n")[2].match(/\\((.*):\\d+:\\d+\\)/)[1];\n  fs.readFileSync(file, "utf8");\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n};\nmodule.exports = { mean };\n`;
    const run = await nodeTest(reads);
    expect(run.violations).toContainEqual({
      kind: "test-source-read",
      severity: "critical",
      message: "code under test read the hidden test test/stats.test.js",
      file: "lib/stats.js",
      line: 4,
    });
    const viaLink = `const fs = require("node:fs");\nfs.symlinkSync(require("node:path").resolve(__dirname, "../test/stats.test.js"), "notes.txt");\nfs.readFileSync("notes.txt", "utf8");\n${STATS}`;
    expect(kinds(await nodeTest(viaLink))).toContain("test-source-read");
  });

  it("reports assertion and result-channel functions replaced by functions defined in code under test", async () => {
    const assign = await nodeTest(`require("node:assert").strictEqual = () => {};\n${STATS}`);
    expect(assign.violations).toContainEqual(
      expect.objectContaining({
        message: "assert.strictEqual was replaced by code under test",
        file: "lib/stats.js",
      }),
    );
    const define = await nodeTest(
      `Object.defineProperty(require("node:assert"), "strictEqual", { value: () => {} });\n${STATS}`,
    );
    expect(kinds(define)).toContain("harness-tampering");
    const stdout = await nodeTest(
      `const w = process.stdout.write;\nprocess.stdout.write = (c, ...r) => w.call(process.stdout, c, ...r);\n${STATS}`,
    );
    expect(stdout.violations).toContainEqual(
      expect.objectContaining({ message: "process.stdout.write was replaced by code under test", line: 2 }),
    );
    const prototype = await nodeTest(
      `const { Writable } = require("node:stream");\nconst w = Writable.prototype.write;\nWritable.prototype.write = function (...a) { return w.apply(this, a); };\n${STATS}`,
    );
    expect(kinds(prototype)).toContain("harness-tampering");
  });

  it("reports a package the tests import, replaced by code under test, as ambiguous: the tests' own stubs are not", async () => {
    const tinycheck =
      'class Checker {\n  verify(a, b) {\n    if (a !== b) throw new Error(String(a) + " !== " + String(b));\n  }\n}\nmodule.exports = { check: (a, b) => new Checker().verify(a, b), Checker };\n';
    const test =
      'const { test } = require("node:test");\nconst tinycheck = require("tinycheck");\nconst { mean } = require("../lib/stats.js");\n\ntest("mean", () => {\n  tinycheck.check(mean([2, 4]), 3);\n});\n';
    // The test's own wrapper, left in place until the exit checkpoint: the tests' doing, nothing to report.
    const wrapping = `${test}\ntest("wraps the checker", () => {\n  const check = tinycheck.check;\n  tinycheck.check = (a, b) => check(a, b);\n  tinycheck.check(1, 1);\n});\n`;
    const run = (stats: string, spec = test) =>
      runProcess({
        workspace: workspace({
          "lib/stats.js": stats,
          "test/stats.test.js": spec,
          "node_modules/tinycheck/index.js": tinycheck,
        }),
        argv: [process.execPath, "--test", "--test-reporter=tap", "test/stats.test.js"],
        hidden: ["test/stats.test.js"],
        harness: jsHarness(NODE_TEST_HARNESS, new Map([["test/stats.test.js", spec]])).objects,
        guards: true,
      });
    const honest = await run(STATS, wrapping);
    expect(honest.stdout).toMatch(/# pass 2/);
    expect([...honest.violations, ...honest.ambiguous]).toEqual([]);
    const silenced = await run(`require("tinycheck").check = () => {};\n${STATS}`);
    expect(silenced.violations).toEqual([]);
    expect(silenced.ambiguous).toContainEqual(
      expect.objectContaining({
        kind: "harness-tampering",
        message: "tinycheck.check was replaced by code under test",
        file: "lib/stats.js",
        line: 1,
      }),
    );
    const prototype = await run(`require("tinycheck").Checker.prototype.verify = function () {};\n${STATS}`);
    expect(prototype.ambiguous.map((a) => a.message)).toContain(
      "tinycheck.Checker.prototype.verify was replaced by code under test",
    );
  });

  it("reports a write to the report channel from code under test", async () => {
    const run = await script('require("node:fs").writeSync(3, "<testsuites/>");\n');
    expect(run.report).toBe("<testsuites/>");
    expect(run.violations.map((v) => v.message)).toEqual([
      "code under test wrote to the test report channel",
    ]);
    // node:test's children do not inherit it; their parent's is found through /proc.
    const viaParent = await nodeTest(
      `require("node:fs").writeFileSync(\`/proc/\${process.ppid}/fd/3\`, "<testsuites/>");\n${STATS}`,
    );
    expect(viaParent.violations.map((v) => v.message)).toContain(
      "code under test opened the test report channel",
    );
  });

  it("reports a process started by code under test that runs the tests again, not an executable fixture", async () => {
    const rerun = await script(
      'if (!process.env.AGAIN) require("node:child_process").spawnSync(process.execPath, ["--test", "test/main.test.js"], { env: { AGAIN: "1" } });\n',
    );
    expect(kinds(rerun)).toContain("test-reexec");
    const fixture = await script(
      'console.log(require("node:child_process").execFileSync(__dirname + "/../test/fixtures/cli.sh").toString());\n',
      { "test/fixtures/cli.sh": "#!/bin/sh\necho fixture ran\n" },
    );
    expect(fixture.stdout).toContain("fixture ran");
    expect(fixture.violations).toEqual([]);
    expect(fixture.ambiguous).toEqual([]);
  });
});

describe("what the Node.js guard leaves alone (each a false finding of the accessor-based guard)", () => {
  it("Node's simple-construction API for streams, in a node:test child whose stream methods are watched", async () => {
    // winston's test helper (the fidelity suite's finding): Writable's constructor sets `this._write`.
    const run = await nodeTest(
      `const { Writable } = require("node:stream");\nconst sink = new Writable({ objectMode: true, write(c, e, cb) { cb(); } });\nsink.write({ level: "info" });\n${STATS}`,
    );
    expect(run.stdout).toMatch(/# pass 2/);
    expect([...run.violations, ...run.ambiguous]).toEqual([]);
  });

  it("Node replacing a watched function itself: require('domain') replaces EventEmitter.prototype.emit", async () => {
    const run = await script(
      'require("domain");\nrequire("events").EventEmitter.prototype.emit.call(process, "noop");\n',
    );
    expect(run.status).toBe(0);
    expect([...run.violations, ...run.ambiguous]).toEqual([]);
  });

  it("code under test in a node:test child starting node, which inherits node:test's child marker", async () => {
    // Found by the behaviour property test: execFileSync(process.execPath, ...) inside a test.
    const piped = await nodeTest(
      `console.log(String(require("node:child_process").execFileSync(process.execPath, ["-e", "console.log(1)"])));\n${STATS}`,
    );
    expect(piped.stdout).toMatch(/# pass 2/);
    expect([...piped.violations, ...piped.ambiguous]).toEqual([]);
    // Its output on the child's own stdout is what node:test's runner reads as results: ambiguous only.
    const shared = await nodeTest(
      `require("node:child_process").spawnSync(process.execPath, ["-e", "0"], { stdio: "inherit" });\n${STATS}`,
    );
    expect(shared.violations).toEqual([]);
    expect(shared.ambiguous.map((f) => f.kind)).toEqual(["test-reexec"]);
  });

  it("Node loading its own stream classes: require('crypto') alone, and a Sign stream written under the guard", async () => {
    const only = await script('require("crypto");\n');
    expect(only.violations).toEqual([]);
    expect(only.ambiguous).toEqual([]);
    const program = `const crypto = require("crypto");
const fs = require("fs");
const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const sign = crypto.createSign("SHA256");
sign.write("abc");
sign.end();
const signature = sign.sign(privateKey);
console.log("verified", crypto.createVerify("SHA256").update("abc").verify(publicKey, signature));
const out = require("path").join(__dirname, "out.txt");
const stream = fs.createWriteStream(out);
stream.end("written", () => console.log(fs.readFileSync(out, "utf8")));
`;
    const guarded = await script(program);
    const bare = await script(program, {}, false);
    expect(guarded.stdout).toBe("verified true\nwritten\n");
    expect([guarded.stdout, guarded.stderr, guarded.status]).toEqual([bare.stdout, bare.stderr, bare.status]);
    expect(guarded.violations).toEqual([]);
    expect(guarded.ambiguous).toEqual([]);
  });

  it("a hidden test read while a stack trace is formatted: by Node, by a formatter, by code under test", async () => {
    const test = `const { logError } = require("../lib/log.js");
function thrower() { throw new Error("boom"); }
try { thrower(); } catch (e) { console.log(logError(e)); }
`;
    // A library that shows the failing line of its caller's error, as test reporters do.
    const log = `const fs = require("fs");
module.exports = { logError: (e) => {
  const saved = Error.prepareStackTrace;
  Error.prepareStackTrace = (err, sites) => fs.readFileSync(sites[0].getFileName(), "utf8").split("\\n")[sites[0].getLineNumber() - 1];
  try { return e.stack; } finally { Error.prepareStackTrace = saved; }
} };
`;
    const run = await runProcess({
      workspace: workspace({ "test/log.test.js": test, "lib/log.js": log }),
      argv: [process.execPath, "test/log.test.js"],
      hidden: ["test/log.test.js"],
      guards: true,
    });
    expect(run.stdout).toContain('function thrower() { throw new Error("boom"); }');
    expect(run.violations).toEqual([]);
    expect(run.ambiguous).toEqual([
      expect.objectContaining({
        message: "code under test read the hidden test test/log.test.js while formatting a stack trace",
        severity: "major",
      }),
    ]);
  });

  it("a package reading a hidden test for the test, while code under test only awaits further out", async () => {
    // jest's own module loading under winston's async transports was blamed on them this way.
    const run = await runProcess({
      workspace: workspace({
        "node_modules/loader/index.js":
          'const fs = require("fs");\nmodule.exports = { load: async (file) => { await null; return fs.readFileSync(file, "utf8"); } };\n',
        "lib/retry.js": "module.exports = { retry: async (fn) => await fn() };\n",
        "test/load.test.js":
          'const { retry } = require("../lib/retry.js");\nconst { load } = require("loader");\nretry(() => load(require("path").join(process.cwd(), "test", "load.test.js"))).then((t) => console.log(t.length > 0));\n',
      }),
      argv: [process.execPath, "test/load.test.js"],
      hidden: ["test/load.test.js"],
      guards: true,
    });
    expect(run.stdout).toBe("true\n");
    expect([...run.violations, ...run.ambiguous]).toEqual([]);
  });

  it("a library opening a path the test hands it (its own __filename): ambiguous, not a violation", async () => {
    const run = await runProcess({
      workspace: workspace({
        "test/parse.test.js":
          'const { parse } = require("../lib/parse.js");\nconsole.log(parse(__filename).length > 0);\n',
        "lib/parse.js": 'module.exports = { parse: (p) => require("fs").readFileSync(p, "utf8") };\n',
      }),
      argv: [process.execPath, "test/parse.test.js"],
      hidden: ["test/parse.test.js"],
      guards: true,
    });
    expect(run.stdout).toBe("true\n");
    expect(run.violations).toEqual([]);
    expect(run.ambiguous.map((f) => f.kind)).toEqual(["test-source-read"]);
  });

  it("reports the source's line, or none: never a line of code transformed in memory", async () => {
    // A require hook that rewrites code as coverage instrumentation does: the lines that run are not the file's.
    const instrument = `const Module = require("module");
const original = Module._extensions[".js"];
Module._extensions[".js"] = function (module, filename) {
  if (!filename.includes("/lib/")) return original(module, filename);
  const source = require("fs").readFileSync(filename, "utf8");
  module._compile("\\n".repeat(500) + source, filename);
};
`;
    const reads =
      'const fs = require("fs");\nconst text = fs.readFileSync(require("path").join(__dirname, "../test/main.test.js"), "utf8");\n';
    const run = await script(reads, {
      "test/setup.js": instrument,
      "test/main.test.js": 'require("./setup.js");\nrequire("../lib/main.js");\n',
    });
    const finding = run.violations.find((v) => v.kind === "test-source-read");
    expect(finding).toMatchObject({ file: "lib/main.js" });
    expect(finding?.line).toBeUndefined();
    const plain = await script(reads);
    expect(plain.violations.find((v) => v.kind === "test-source-read")).toMatchObject({
      file: "lib/main.js",
      line: 2,
    });
  });
});

const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";

describe.skipIf(!existsSync(DEBIAN_MOCHA))(
  "the Node.js guard under mocha (Debian's), through the mocha adapter's plan",
  () => {
    const SPEC = `const assert = require("node:assert");
const { div } = require("../lib/calc.js");
describe("div", () => {
  it("divides", () => { assert.strictEqual(div(6, 3), 2); });
  it("rejects a zero divisor", () => { assert.throws(() => div(1, 0), RangeError); });
});
`;
    const FIXED =
      'function div(a, b) {\n  if (b === 0) throw new RangeError("zero");\n  return a / b;\n}\nmodule.exports = { div };\n';
    const run = (calc: string) =>
      runPlanned({
        runner: runnerNamed("mocha"),
        workspace: workspace({ "lib/calc.js": calc, "test/calc.spec.js": SPEC }),
        testFiles: ["test/calc.spec.js"],
        command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
        env: { NODE_PATH: "/usr/share/nodejs" },
        guards: true,
      });
    const messages = (r: Awaited<ReturnType<typeof run>>) =>
      r.runs.flatMap((x) => x.violations.map((v) => v.message));

    it("stays silent for an honest fix, with its canaries failing as they must", async () => {
      const honest = await run(FIXED);
      expect(honest.tests["test/calc.spec.js::div > rejects a zero divisor"]).toBe("passed");
      for (const c of honest.canaries)
        expect(honest.tests[c.id]).toBe(c.expect === "pass" ? "passed" : "failed");
      expect(honest.runs.flatMap((r) => [...r.violations, ...r.ambiguous])).toEqual([]);
    });

    it("reports the prototype of a class a test imports from a package (a request tester) patched by code under test, as ambiguous", async () => {
      const probe = `class Probe {
  constructor(value) { this.value = value; }
  expect(wanted) {
    if (this.value !== wanted) throw new Error(\`got \${this.value}, wanted \${wanted}\`);
    return this;
  }
}
module.exports = (value) => new Probe(value);
module.exports.Probe = Probe;
`;
      const spec = `const probe = require("valueprobe");
const { div } = require("../lib/calc.js");
describe("div", () => {
  it("divides", () => { probe(div(6, 3)).expect(2); });
  it("rejects a zero divisor", () => {
    let thrown = false;
    try { div(1, 0); } catch (e) { thrown = e instanceof RangeError; }
    probe(thrown).expect(true);
  });
});
`;
      const planned = (calc: string) =>
        runPlanned({
          runner: runnerNamed("mocha"),
          workspace: workspace({
            "lib/calc.js": calc,
            "test/calc.spec.js": spec,
            "node_modules/valueprobe/index.js": probe,
          }),
          testFiles: ["test/calc.spec.js"],
          command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
          env: { NODE_PATH: "/usr/share/nodejs" },
          guards: true,
        });
      const honest = await planned(FIXED);
      expect(honest.runs.flatMap((r) => [...r.violations, ...r.ambiguous])).toEqual([]);
      const silenced = await planned(
        'require("valueprobe").Probe.prototype.expect = function () { return this; };\nmodule.exports = { div: (a, b) => a / b };\n',
      );
      expect(silenced.tests["test/calc.spec.js::div > rejects a zero divisor"]).toBe("passed");
      expect(silenced.runs.flatMap((r) => r.violations)).toEqual([]);
      expect(silenced.runs.flatMap((r) => r.ambiguous.map((a) => a.message))).toContain(
        "valueprobe.Probe.prototype.expect was replaced by code under test",
      );
    });

    it("reports mocha's classes wrapped and its tests' functions replaced by code under test", async () => {
      const runTest =
        await run(`const key = Object.keys(require.cache).find((k) => k.endsWith("/mocha/lib/runner.js"));
const Runner = require.cache[key].exports;
const original = Runner.prototype.runTest;
let body = "";
Runner.prototype.runTest = function (fn) { body = this.test.body; return original.call(this, fn); };
module.exports = { div: (a, b) => { if (b === 0 && body.includes("RangeError")) throw new RangeError("zero"); return a / b; } };
`);
      expect(messages(runTest)).toContain("mocha.Runner.prototype.runTest was replaced by code under test");
      const swallow = await run(`const it = global.it;
global.it = (title, fn) => it(title, function () { try { return fn.call(this); } catch {} });
module.exports = { div: (a, b) => a / b };
`);
      expect(messages(swallow)).toContain(
        'the function of the test "div > rejects a zero divisor" was defined in code under test',
      );
    });
  },
);
