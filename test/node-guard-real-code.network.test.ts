/**
 * The Node.js guard on real code from the npm registry (network-gated: GAGAR_TEST_NETWORK=1, which .ci/run
 * sets), pinned versions, nothing copied into the repository:
 * - the false findings of the accessor-based guard, from the real packages that caused them: `destroy`
 *   (it loads fs's stream classes) used by code under test; `source-map-support` formatting, for code
 *   under test, the stack of an error a test threw (it reads the test file to map it); `callsites`
 *   taking the structured stack;
 * - `cross-spawn` 7.0.6 as the code under test (its published package is the workspace), under jest with
 *   coverage: a library running an executable fixture the test hands it, in code instrumented by
 *   istanbul (the lines that run are not the file's);
 * - whole real test suites shipped in npm tarballs, through the real runner adapters' plans with and
 *   without the guard: numeral 2.0.6 (mocha + chai), @fastify/error 4.3.0 and avvio 9.3.1 (node:test):
 *   the same per-test results both ways, and no violation.
 * Wall times with and without the guard are printed, not asserted (bench/ is where speed is measured).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsHarness, NODE_TEST_HARNESS } from "../src/verify/runners/harness-surfaces.ts";
import { runnerNamed } from "../src/verify/runners/registry.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { type PlannedRunResult, type ProcessRun, runPlanned, runProcess } from "./support/guarded-process.ts";

const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";
const PACKAGES = [
  "destroy@1.2.0",
  "source-map-support@0.5.21",
  "callsites@3.1.0",
  "chai@4.5.0",
  "cross-spawn@7.0.6",
  "jest@29.7.0",
];
const NODE_TEST = jsHarness(NODE_TEST_HARNESS, undefined).objects;

/** A plan's results without its canaries. */
function ownTests(result: PlannedRunResult): Record<string, string> {
  const canaries = new Set(result.canaries.map((c) => c.id));
  return Object.fromEntries(Object.entries(result.tests).filter(([id]) => !canaries.has(id)));
}

const npm = (cwd: string, ...args: string[]) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--ignore-scripts"], { cwd, stdio: "ignore" });

describe.skipIf(NETWORK_SKIP !== undefined)(
  `the Node.js guard on real code from the npm registry${NETWORK_SKIP ? ` (skipped: ${NETWORK_SKIP})` : ""}`,
  () => {
    const root = mkdtempSync(join(tmpdir(), "gagar-guard-real-"));
    const modules = join(root, "packages", "node_modules");
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    beforeAll(() => {
      mkdirSync(join(root, "packages"));
      writeFileSync(join(root, "packages", "package.json"), '{ "private": true }\n');
      npm(join(root, "packages"), "install", "--no-save", "--no-package-lock", ...PACKAGES);
      for (const spec of ["numeral@2.0.6", "@fastify/error@4.3.0", "avvio@9.3.1", "cross-spawn@7.0.6"]) {
        const tarball = execFileSync("npm", ["pack", spec, "--silent"], {
          cwd: root,
          encoding: "utf8",
        }).trim();
        const dir = join(root, spec.replace(/^@/, "").replace(/[/@]/g, "-"));
        mkdirSync(dir);
        execFileSync("tar", ["-x", "-z", "-f", join(root, tarball), "-C", dir, "--strip-components=1"]);
      }
      // avvio's own dependencies, without its development ones.
      npm(join(root, "avvio-9.3.1"), "install", "--omit=dev", "--no-package-lock");
    }, 600_000);

    let count = 0;
    /** A workspace whose node_modules are the installed packages. */
    function workspace(files: Record<string, string>): string {
      const dir = join(root, `ws-${count++}`);
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(dir, path, ".."), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      symlinkSync(modules, join(dir, "node_modules"));
      return dir;
    }

    const durations = (text: string) => text.replace(/duration_ms:? [\d.]+/g, "duration_ms *");
    async function bothWays(
      dir: string,
      argv: string[],
      hidden: string[],
    ): Promise<[ProcessRun, ProcessRun]> {
      const options = { workspace: dir, argv, hidden, harness: NODE_TEST };
      const bare = await runProcess({ ...options, guards: false });
      const guarded = await runProcess({ ...options, guards: true });
      expect(guarded.started).toBe(true);
      expect(durations(guarded.stdout)).toBe(durations(bare.stdout));
      expect(guarded.status).toBe(bare.status);
      return [bare, guarded];
    }

    it("destroy, which loads fs's stream classes, used by code under test: the same results, no finding", async () => {
      const dir = workspace({
        "lib/digest.js": `"use strict";
const crypto = require("crypto");
const fs = require("fs");
const destroy = require("destroy");
function digest(file, done) {
  const stream = fs.createReadStream(file);
  const hash = crypto.createHash("sha256");
  stream.on("data", (chunk) => hash.write(chunk));
  stream.on("end", () => {
    destroy(stream);
    const sign = crypto.createSign("SHA256");
    sign.write("abc");
    sign.end();
    hash.end();
    done(hash.read().toString("hex"));
  });
}
module.exports = { digest };
`,
        "test/digest.test.js": `const { test } = require("node:test");
const assert = require("node:assert");
const { digest } = require("../lib/digest.js");
test("digests a file", (t, done) => {
  digest(require("path").join(__dirname, "..", "package.json"), (hex) => {
    assert.strictEqual(hex, require("crypto").createHash("sha256").update(require("fs").readFileSync(require("path").join(__dirname, "..", "package.json"))).digest("hex"));
    done();
  });
});
`,
        "package.json": '{ "name": "digest" }\n',
      });
      const [, guarded] = await bothWays(
        dir,
        [process.execPath, "--test", "--test-reporter=tap", "test/digest.test.js"],
        ["test/digest.test.js"],
      );
      expect(guarded.stdout).toMatch(/# pass 1/);
      expect(guarded.violations).toEqual([]);
      expect(guarded.ambiguous).toEqual([]);
    });

    it("source-map-support, formatting for code under test the stack of a test's error: no finding", async () => {
      const dir = workspace({
        "lib/report.js": 'module.exports = { report: (error) => String(error.stack).split("\\n").length };\n',
        "test/report.test.js": `require("source-map-support").install();
const { test } = require("node:test");
const assert = require("node:assert");
const { report } = require("../lib/report.js");
function fails() { throw new Error("boom"); }
test("reports a stack", () => {
  try { fails(); } catch (error) { assert.ok(report(error) > 2); }
});
`,
      });
      const [, guarded] = await bothWays(
        dir,
        [process.execPath, "--test", "--test-reporter=tap", "test/report.test.js"],
        ["test/report.test.js"],
      );
      expect(guarded.stdout).toMatch(/# pass 1/);
      expect(guarded.violations).toEqual([]);
      expect(guarded.ambiguous).toEqual([]);
    });

    it("callsites taken by code under test is nothing; reading the caller's file with them is a violation", async () => {
      const caller = `const callsites = require("callsites");
function where() { return callsites()[1].getFileName(); }
`;
      const test = `const { test } = require("node:test");
const assert = require("node:assert");
const { where } = require("../lib/where.js");
test("knows its caller", () => { assert.match(where(), /where\\.test\\.js$/); });
`;
      const plain = workspace({
        "lib/where.js": `${caller}module.exports = { where };\n`,
        "test/where.test.js": test,
      });
      const argv = [process.execPath, "--test", "--test-reporter=tap", "test/where.test.js"];
      const [, guarded] = await bothWays(plain, argv, ["test/where.test.js"]);
      expect(guarded.stdout).toMatch(/# pass 1/);
      expect([...guarded.violations, ...guarded.ambiguous]).toEqual([]);
      const reads = workspace({
        "lib/where.js": `const callsites = require("callsites");
function callerFile() { return callsites()[2].getFileName(); }
module.exports = { where: () => { const file = callerFile(); require("fs").readFileSync(file, "utf8"); return file; } };
`,
        "test/where.test.js": test,
      });
      const [, reading] = await bothWays(reads, argv, ["test/where.test.js"]);
      expect(reading.violations.map((v) => v.kind)).toEqual(["test-source-read"]);
    });

    it("cross-spawn, as code under test instrumented by jest's coverage, running an executable fixture of the hidden tests: no finding", async () => {
      // The workspace is cross-spawn's published package; the hidden tests, written here, hand it an
      // executable fixture under test/fixtures (a hidden file that declares no tests) and, as the
      // control, a hidden test module, which is running the tests again.
      const dir = join(root, "cross-spawn-7.0.6");
      symlinkSync(modules, join(dir, "node_modules"));
      const hidden: Record<string, string> = {
        "test/spawn.test.js": `const path = require("path");
const spawn = require("..");
test("runs an executable fixture it is handed", () => {
  const run = spawn.sync(path.join(__dirname, "fixtures", "hello.js"), ["world"], { encoding: "utf8" });
  expect(run.stdout).toBe("hello world\\n");
});
test("runs node on a test file it is handed", () => {
  const run = spawn.sync(process.execPath, [path.join(__dirname, "other.test.js")], { encoding: "utf8" });
  expect(run.status).not.toBe(null);
});
`,
        "test/other.test.js": 'test("is another test", () => {});\n',
        "test/fixtures/hello.js": '#!/usr/bin/env node\nconsole.log("hello", process.argv[2]);\n',
      };
      for (const [path, text] of Object.entries(hidden)) {
        mkdirSync(join(dir, path, ".."), { recursive: true });
        writeFileSync(join(dir, path), text, { mode: 0o755 });
      }
      const argv = [
        process.execPath,
        "node_modules/jest/bin/jest.js",
        "--ci",
        "--coverage",
        "test/spawn.test.js",
      ];
      const options = { workspace: dir, argv, hidden: Object.keys(hidden), timeoutMs: 300_000 };
      const bare = await runProcess({ ...options, guards: false });
      const guarded = await runProcess({ ...options, guards: true });
      expect(guarded.started).toBe(true);
      for (const run of [bare, guarded]) expect(run.stderr).toMatch(/Tests: +2 passed, 2 total/);
      // istanbul instrumented index.js: the coverage table says so.
      expect(guarded.stdout).toMatch(/index\.js +\|/);
      expect(guarded.ambiguous).toEqual([]);
      // Only the control: node started on a hidden test module, pinned on cross-spawn's index.js, and on
      // no line, since the line that ran is one of the instrumented code, not of the file.
      expect(guarded.violations.map((v) => [v.kind, v.file, v.line])).toEqual([
        ["test-reexec", "index.js", undefined],
      ]);
      expect(guarded.violations[0]!.message).toContain("test/other.test.js");
    }, 600_000);

    /**
     * A runner adapter's plan on a real suite without and with the guard. Real suites have tests that
     * depend on timing (avvio's 10 ms plugin timeouts): a file whose results differ between the two runs,
     * or whose canaries did not come out as they must in either, is run again both ways, up to twice,
     * and must then agree. The ambiguous findings of the guarded runs are returned.
     */
    async function wholeSuite(options: {
      runner: string;
      dir: string;
      testFiles: string[];
      command?: string[];
      env?: Record<string, string>;
    }) {
      const run = (testFiles: string[], guards: boolean) =>
        runPlanned({
          runner: runnerNamed(options.runner),
          workspace: options.dir,
          testFiles,
          command: options.command,
          env: options.env,
          guards,
          timeoutMs: 300_000,
        });
      const both = async (testFiles: string[]) => ({
        bare: await run(testFiles, false),
        guarded: await run(testFiles, true),
      });
      /** Files whose tests differ, or whose canaries are wrong, in either run. */
      const unsettled = ({ bare, guarded }: { bare: PlannedRunResult; guarded: PlannedRunResult }) => {
        const files = new Set<string>();
        const fileOf = (id: string) => id.slice(0, id.indexOf("::"));
        for (const run of [bare, guarded])
          for (const c of run.canaries)
            if (run.tests[c.id] !== (c.expect === "pass" ? "passed" : "failed")) files.add(fileOf(c.id));
        for (const id of new Set([...Object.keys(ownTests(bare)), ...Object.keys(ownTests(guarded))]))
          if (ownTests(bare)[id] !== ownTests(guarded)[id]) files.add(fileOf(id));
        return [...files].filter((f) => options.testFiles.includes(f));
      };
      const first = await both(options.testFiles);
      let left = unsettled(first);
      const retried = [...left];
      for (let attempt = 0; attempt < 2 && left.length; attempt++) left = unsettled(await both(left));
      const { bare, guarded } = first;
      console.log(
        `${options.runner} suite in ${options.dir.split("/").at(-1)}: ${Object.keys(ownTests(bare)).length} tests, ` +
          `${Math.round(bare.wallMs)} ms without the guard, ${Math.round(guarded.wallMs)} ms with it ` +
          `(CPU ${Math.round(bare.cpuMs)} ms and ${Math.round(guarded.cpuMs)} ms)` +
          (retried.length ? `; run again, as their results differed: ${retried.join(", ")}` : ""),
      );
      expect(Object.keys(ownTests(bare)).length).toBeGreaterThan(20);
      expect(left).toEqual([]);
      expect(guarded.runs.every((r) => r.started)).toBe(true);
      expect(guarded.runs.flatMap((r) => r.violations)).toEqual([]);
      return guarded.runs.flatMap((r) => r.ambiguous);
    }

    const testsIn = (dir: string, sub: string) =>
      readdirSync(join(dir, sub), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".js"))
        .map((f) => `${sub}/${f}`)
        .sort();

    it.skipIf(!existsSync(DEBIAN_MOCHA))(
      "numeral 2.0.6's mocha + chai suite: the same per-test results with and without the guard",
      async () => {
        const dir = join(root, "numeral-2.0.6");
        symlinkSync(modules, join(dir, "node_modules"));
        const ambiguous = await wholeSuite({
          runner: "mocha",
          dir,
          testFiles: testsIn(dir, "tests"),
          command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
          env: { NODE_PATH: "/usr/share/nodejs" },
        });
        expect(ambiguous).toEqual([]);
      },
      600_000,
    );

    it("@fastify/error 4.3.0's node:test suite: the same per-test results with and without the guard", async () => {
      const dir = join(root, "fastify-error-4.3.0");
      const ambiguous = await wholeSuite({
        runner: "node:test",
        dir,
        testFiles: testsIn(dir, "test").filter((f) => f.endsWith(".test.js")),
      });
      expect(ambiguous).toEqual([]);
    }, 600_000);

    it("avvio 9.3.1's node:test suite: the same per-test results with and without the guard", async () => {
      const dir = join(root, "avvio-9.3.1");
      const ambiguous = await wholeSuite({
        runner: "node:test",
        dir,
        testFiles: readdirSync(join(dir, "test"))
          .filter((f) => f.endsWith(".test.js"))
          .map((f) => `test/${f}`)
          .sort(),
      });
      expect(ambiguous).toEqual([]);
    }, 900_000);
  },
);
