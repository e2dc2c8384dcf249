/**
 * `gagar tasks import` and `gagar tasks check` as a user runs them: a real `gagar` process, its exit
 * code, what it printed, and the file system afterwards. The repositories are built here with git; the
 * tasks run in the bwrap sandbox with the host's pytest and Debian's mocha.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { startGagar } from "./support/gagar-process.ts";
import { GitFixture, writeInstances } from "./support/git-fixture.ts";

const MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";
const MOCHA_SKIP = existsSync(MOCHA) ? undefined : "Debian's mocha is not installed (apt-get install mocha)";
/** Debian's mocha finds its own modules through NODE_PATH; a record can say so in its test_command. */
const MOCHA_COMMAND = [
  "env",
  "NODE_PATH=/usr/share/nodejs",
  "node",
  MOCHA,
  "--reporter={reporter}",
  "{tests}",
];

const root = mkdtempSync(join(tmpdir(), "gagar-cli-tasks-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repos = join(root, "repos");

async function gagar(...args: string[]): Promise<{ code: number | null; stderr: string }> {
  const run = startGagar(args);
  const { code } = await run.exited;
  return { code, stderr: run.lines.join("\n") };
}

/** Folders and files left in `dir`, hidden ones included. */
function entries(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

// ------------------------------------------------------------------------------------------ fixtures

const CALC = "def div(a, b):\n    return a / b\n";
let calc: GitFixture;
let calcRecord: Record<string, unknown>;

const WORDS = `"use strict";
exports.titleCase = (text) =>
  text
    .split(" ")
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(" ");
exports.split = (text) => text.split(" ");
`;
const WORDS_FIXED = `"use strict";
const SMALL = new Set(["a", "of", "the"]);
exports.titleCase = (text) =>
  text
    .split(" ")
    .map((w, i) => (i > 0 && SMALL.has(w) ? w : w[0].toUpperCase() + w.slice(1)))
    .join(" ");
exports.split = (text) => text.split(" ");
`;
const WORDS_SPEC = (extra: string) => `"use strict";
const assert = require("node:assert");
const { split, titleCase } = require("../lib/words.js");

describe("words", () => {
  describe("titleCase", () => {
    it("capitalises words", () => {
      assert.strictEqual(titleCase("gone girl"), "Gone Girl");
    });
${extra}  });
});
`;
let words: GitFixture;
let wordsRecord: Record<string, unknown>;

beforeAll(() => {
  calc = new GitFixture(join(repos, "acme", "calc"), {
    "calc.py": CALC,
    "tests/test_calc.py": "from calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n",
  });
  calcRecord = {
    instance_id: "calc-1",
    repo: "acme/calc",
    base_commit: calc.base,
    patch: calc.diff({
      "calc.py": 'def div(a, b):\n    if b == 0:\n        raise ValueError("zero")\n    return a / b\n',
    }),
    test_patch: calc.diff({
      "tests/test_calc.py":
        "import pytest\nfrom calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n\n\ndef test_div_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n",
    }),
    FAIL_TO_PASS: ["tests/test_calc.py::test_div_zero"],
    PASS_TO_PASS: ["tests/test_calc.py::test_div"],
    problem_statement: "div by zero should raise ValueError",
  };
  words = new GitFixture(join(repos, "acme", "words"), {
    "lib/words.js": WORDS,
    "test/words.spec.js": WORDS_SPEC(""),
  });
  wordsRecord = {
    instance_id: "words-1",
    repo: "acme/words",
    base_commit: words.base,
    patch: words.diff({ "lib/words.js": WORDS_FIXED }),
    test_patch: words.diff({
      "test/words.spec.js": WORDS_SPEC(
        [
          '    it("keeps short words lower", () => {',
          '      assert.strictEqual(titleCase("the lord of the rings"), "The Lord of the Rings");',
          "    });",
          "  });",
          // Two tests whose full titles are both "split on spaces": one id in SWE-PolyBench's form
          // stands for both.
          '  describe("split", () => {',
          '    it("on spaces", () => assert.deepStrictEqual(split("a b"), ["a", "b"]));',
          "  });",
          '  describe("split on", () => {',
          '    it("spaces", () => assert.deepStrictEqual(split("c d"), ["c", "d"]));',
          "",
        ].join("\n"),
      ),
    }),
    // SWE-PolyBench's mocha ids: full titles, the titles joined by spaces.
    FAIL_TO_PASS: ["words titleCase keeps short words lower"],
    PASS_TO_PASS: ["words titleCase capitalises words", "words split on spaces"],
    problem_statement: "titleCase should keep short words lower case",
    language: "javascript",
    runner: "mocha",
    test_command: MOCHA_COMMAND,
  };
});

// ------------------------------------------------------------------------------------------ import

describe("gagar tasks import", () => {
  it("refuses a bad record with its line and field, exit 2, before any work, leaving no folder", async () => {
    const file = writeInstances(join(root, "bad.jsonl"), [
      calcRecord,
      { ...calcRecord, instance_id: "calc-2", patch: "" },
    ]);
    const out = join(root, "out-bad", "tasks");
    const { code, stderr } = await gagar("tasks", "import", file, "--repos", repos, "--out", out);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}:2 (field patch): the reference patch is empty`);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(root, "out-bad"))).toBe(false);
    const missing = join(root, "no-such-environments.json");
    const flag = await gagar(
      "tasks",
      "import",
      file,
      "--repos",
      repos,
      "--out",
      out,
      "--environments",
      missing,
    );
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(`gagar: --environments ${missing}: no such file`);
  }, 120_000);

  it("exits 3 and leaves no folder when no instance could be imported", async () => {
    const broken = {
      ...calcRecord,
      test_patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
    };
    const file = writeInstances(join(root, "none.jsonl"), [broken]);
    const out = join(root, "out-none");
    const { code, stderr } = await gagar("tasks", "import", file, "--repos", repos, "--out", out);
    expect(code).toBe(3);
    expect(stderr).toContain(
      `✗ calc-1: not imported: ${file}:1 (field test_patch): does not apply to base_commit`,
    );
    expect(stderr.split("\n").at(-1)).toBe("gagar: 1 of 1 instances not imported (calc-1)");
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it.skipIf(MOCHA_SKIP)(
    "imports several repositories with their own runners, commands and environments from one file, carries on past the ones that fail, and says why each failed",
    async () => {
      const failingSetup = {
        kind: "setup",
        // What `npm ci` prints when the lock file is out of date: its error first, then its usage.
        commands: [
          [
            "python3",
            "-c",
            "import sys\nfor line in ['npm error code EUSAGE', 'npm error Missing: chai@3.5.0 from lock file'] + ['npm error usage line %d' % i for i in range(120)]:\n    print(line, file=sys.stderr)\nsys.exit(1)",
          ],
        ],
      };
      const badRef = {
        ...calcRecord,
        instance_id: "calc-badref",
        patch: calc.diff({ "calc.py": `"""Division."""\n\n\n${CALC}` }),
      };
      const file = writeInstances(join(root, "mixed.jsonl"), [
        calcRecord,
        wordsRecord,
        { ...calcRecord, instance_id: "calc-setup", environment: failingSetup },
        badRef,
        {
          ...calcRecord,
          instance_id: "calc-setup-derive",
          FAIL_TO_PASS: undefined,
          PASS_TO_PASS: undefined,
          environment: failingSetup,
        },
        {
          ...calcRecord,
          instance_id: "calc-nopatch",
          test_patch: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        },
      ]);
      const out = join(root, "out-mixed");
      const { code, stderr } = await gagar(
        "tasks",
        "import",
        file,
        "--repos",
        repos,
        "--out",
        out,
        "--check",
        "--sandbox",
        "bwrap",
        "--timeout",
        "60",
      );
      expect(code, stderr).toBe(3);
      // Every instance was tried; what failed left nothing behind, what is invalid is kept (never scored).
      expect(entries(out)).toEqual(["calc-1", "calc-badref", "calc-setup", "words-1"]);
      const check = (id: string) => JSON.parse(readFileSync(join(out, id, "check.json"), "utf8"));
      expect(check("calc-1")).toMatchObject({ valid: true, problems: [] });
      expect(check("words-1")).toMatchObject({ valid: true, problems: [] });
      expect(check("words-1").notes).toEqual([
        "test id words split on spaces matched 2 reported tests: every one of them must pass",
      ]);
      expect(check("calc-badref").valid).toBe(false);
      // Its lists were given, so it is kept, and its check says why it cannot run (never scored).
      expect(check("calc-setup")).toMatchObject({ valid: false });
      expect(check("calc-setup").problems[0]).toMatch(
        /^the task cannot be run: setup command "python3 -c .*" exited 1$/,
      );
      expect(check("calc-setup").setupOutput).toContain("npm error Missing: chai@3.5.0 from lock file");
      const words = JSON.parse(readFileSync(join(out, "words-1", "task.json"), "utf8"));
      expect(words.test).toMatchObject({ runner: "mocha", command: MOCHA_COMMAND });
      expect(words.failToPass).toEqual(["words titleCase keeps short words lower"]);
      // The set-up command's own error, which comes before its usage text.
      expect(stderr).toContain("✗ calc-setup: invalid");
      expect(stderr).toContain("npm error Missing: chai@3.5.0 from lock file");
      expect(stderr).toContain(`✗ calc-nopatch: not imported: ${file}:6 (field test_patch): does not apply`);
      // Without lists there is nothing to keep: not imported, with the set-up command's own error.
      expect(stderr).toMatch(
        new RegExp(
          `✗ calc-setup-derive: not imported: ${file}:5 \\(field environment\\): cannot derive FAIL_TO_PASS: the task cannot be run: setup command "python3 -c .*" exited 1\n    what it printed:\n      \\[stderr\\]\n      npm error code EUSAGE\n      npm error Missing: chai@3.5.0 from lock file\n`,
        ),
      );
      expect(stderr).toContain("✗ calc-badref: invalid");
      expect(stderr).toContain(
        "the reference patch does not pass: tests-failed (tests/test_calc.py::test_div_zero failed)",
      );
      expect(stderr).toContain("imported 4 of 6 instances into");
      expect(stderr.split("\n").at(-1)).toBe(
        "gagar: 2 of 6 instances not imported (calc-setup-derive, calc-nopatch); 2 imported tasks invalid (calc-setup, calc-badref), kept but never scored until a check passes",
      );
      expect(stderr).not.toContain("SandboxError");
      // The reference run's pytest output is shown, and names no test but the task's own.
      const shown = `${stderr}\n${JSON.stringify(check("calc-badref"))}`;
      expect(shown).toContain("test_div_zero");
      expect(shown).not.toMatch(/\b[0-9a-f]{12}\b/);
      const testNames = new Set([...shown.matchAll(/\.py::(\w+)/g)].map((m) => m[1]));
      expect(testNames).toContain("test_div_zero");
      for (const name of testNames) expect(["test_div", "test_div_zero"]).toContain(name);
      // The canaries' lines were there, and are gone.
      expect(shown).toContain("[line quoting a hidden test removed]");
    },
    240_000,
  );
});

describe("gagar tasks import: a base run that does not finish", () => {
  const TICKER = `"use strict";
let timer = null;
exports.start = () => {
  timer = setInterval(() => {}, 1000);
};
exports.stop = () => {};
exports.running = () => timer !== null;
`;
  const TICKER_FIXED = TICKER.replace(
    "exports.stop = () => {};",
    "exports.stop = () => {\n  clearInterval(timer);\n  timer = null;\n};",
  );
  const TICKER_SPEC = `"use strict";
const assert = require("node:assert");
const ticker = require("../lib/ticker.js");

describe("ticker", () => {
  it("starts", () => {
    ticker.start();
    assert.strictEqual(ticker.running(), true);
  });
  it("stops", () => {
    ticker.stop();
    assert.strictEqual(ticker.running(), false);
  });
});
`;
  const LOOP =
    'def count_down(n):\n    while n != 0:\n        n -= 1\n    return "done"\n\n\ndef double(x):\n    return 2 * x\n';
  const LOOP_TESTS =
    'from calc import count_down, double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\ndef test_count_down_negative():\n    assert count_down(-3) == "done"\n\n\ndef test_zz_last():\n    assert double(0) == 0\n';

  it.skipIf(MOCHA_SKIP)(
    "derives from what the base run reported, and says when a test needs a per-test timeout",
    async () => {
      const ticker = new GitFixture(join(repos, "acme", "ticker"), { "lib/ticker.js": TICKER });
      const loop = new GitFixture(join(repos, "acme", "loop"), {
        "calc.py": LOOP,
        "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
      });
      const file = writeInstances(join(root, "hang.jsonl"), [
        {
          // The timer the bug leaves running keeps mocha from exiting after its tests.
          instance_id: "ticker-1",
          repo: "acme/ticker",
          base_commit: ticker.base,
          patch: ticker.diff({ "lib/ticker.js": TICKER_FIXED }),
          test_patch: ticker.diff({ "test/ticker.spec.js": TICKER_SPEC }),
          problem_statement: "stop() leaves the timer running",
          language: "javascript",
          runner: "mocha",
          test_command: MOCHA_COMMAND,
        },
        {
          // An endless loop in one test: the base run is stopped in it.
          instance_id: "loop-1",
          repo: "acme/loop",
          base_commit: loop.base,
          patch: loop.diff({ "calc.py": LOOP.replace("while n != 0:", "while n > 0:") }),
          test_patch: loop.diff({ "tests/test_calc.py": LOOP_TESTS }),
          problem_statement: "count_down never returns for negative numbers",
        },
      ]);
      const out = join(root, "out-hang");
      const { code, stderr } = await gagar(
        "tasks",
        "import",
        file,
        "--repos",
        repos,
        "--out",
        out,
        "--sandbox",
        "bwrap",
        // Long enough for the mocha run to reach its end on a loaded machine before it is stopped.
        "--timeout",
        "40",
      );
      expect(code, stderr).toBe(3);
      expect(entries(out), stderr).toEqual(["ticker-1"]);
      // Not all 2 tests of the mocha task: only the one that failed without the fix.
      const task = JSON.parse(readFileSync(join(out, "ticker-1", "task.json"), "utf8"));
      expect(task.failToPass, stderr).toEqual(["test/ticker.spec.js::ticker > stops"]);
      expect(task.passToPass, stderr).toEqual(["test/ticker.spec.js::ticker > starts"]);
      const check = JSON.parse(readFileSync(join(out, "ticker-1", "check.json"), "utf8"));
      expect(check.valid).toBe(true);
      expect(check.notes.join("\n")).toMatch(
        /the run without the fix did not finish within the task's 40s timeout \(2 tests reported before it was stopped\): .*mocha's --timeout and --exit/,
      );
      // The loop: the base got through one test before it hung, so no test is known to fail without the fix.
      expect(stderr).toMatch(
        /✗ loop-1: not imported: .*:2 \(field FAIL_TO_PASS\): cannot derive: no test is known to fail without the fix: the run without the fix did not finish within the task's 40s timeout \(1 test reported before it was stopped\): a test that hangs .* needs a per-test timeout/,
      );
    },
    400_000,
  );
});

// ------------------------------------------------------------------------------------------ check

describe("gagar tasks check --run", () => {
  it("leaves the pack as it is unless --save; an invalid task exits 3, and the lines agree", async () => {
    // SWE-PolyBench's id form; its harness does not count a passToPass test no report mentions.
    const poly = {
      ...calcRecord,
      instance_id: "poly-1",
      FAIL_TO_PASS: ["tests/test_calc.py:test_div_zero"],
      PASS_TO_PASS: ["tests/test_calc.py:test_div", "tests/test_calc.py:test_gone"],
    };
    const file = writeInstances(join(root, "poly.jsonl"), [poly]);
    const out = join(root, "out-poly");
    const imported = await gagar(
      "tasks",
      "import",
      file,
      "--repos",
      repos,
      "--out",
      out,
      "--check",
      "--sandbox",
      "bwrap",
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain("imported 1 of 1 instances into");
    const dir = join(out, "poly-1");
    const spec = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
    expect(spec.missingPassToPass).toBe("ignore");
    const saved = readFileSync(join(dir, "check.json"), "utf8");
    expect(JSON.parse(saved)).toMatchObject({ valid: true });

    const again = await gagar("tasks", "check", dir, "--run", "--sandbox", "bwrap");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("poly-1: note: test id tests/test_calc.py::test_gone never appears");
    expect(readFileSync(join(dir, "check.json"), "utf8")).toBe(saved);

    // gagar's own rule: a listed test that never runs makes the task invalid.
    writeFileSync(join(dir, "task.json"), JSON.stringify({ ...spec, missingPassToPass: "fail" }));
    const strict = await gagar("tasks", "check", dir, "--run", "--sandbox", "bwrap");
    expect(strict.code, strict.stderr).toBe(3);
    expect(strict.stderr).toContain("1 task packs are well-formed; running each");
    expect(strict.stderr).toContain("test id tests/test_calc.py::test_gone never appears in a report");
    expect(strict.stderr.split("\n").at(-1)).toBe(
      "gagar: 1 of 1 tasks are invalid (poly-1); pass --save to keep the result in their check.json, so that gagar verify refuses them",
    );
    expect(strict.stderr).not.toContain("SandboxError");
    expect(readFileSync(join(dir, "check.json"), "utf8")).toBe(saved);
    const kept = await gagar("tasks", "check", dir, "--run", "--save", "--sandbox", "bwrap");
    expect(kept.code).toBe(3);
    expect(JSON.parse(readFileSync(join(dir, "check.json"), "utf8"))).toMatchObject({ valid: false });
  }, 240_000);

  it("refuses --save without --run", async () => {
    const { code, stderr } = await gagar("tasks", "check", join(root, "nowhere"), "--save");
    expect(code).toBe(2);
    expect(stderr).toContain("--save needs --run");
  }, 120_000);
});

describe.skipIf(NETWORK_SKIP)("gagar tasks check --run on a task whose npm ci fails", () => {
  it("shows npm's own error", async () => {
    const dir = join(root, "npm-task", "npm-1");
    const files: Record<string, string> = {
      "task.json": JSON.stringify({
        schemaVersion: 2,
        id: "npm-1",
        statement: "add adds",
        language: "javascript",
        test: { runner: "node:test" },
        environment: { kind: "setup", commands: [["npm", "ci", "--ignore-scripts"]] },
        failToPass: ["test/add.test.js::adds"],
      }),
      "repo/package.json": JSON.stringify({
        name: "x",
        version: "1.0.0",
        devDependencies: { chai: "3.5.0" },
      }),
      "repo/package-lock.json": JSON.stringify({
        name: "x",
        version: "1.0.0",
        lockfileVersion: 3,
        requires: true,
        packages: { "": { name: "x", version: "1.0.0" } },
      }),
      "repo/index.js": "exports.add = (a, b) => a - b;\n",
      "tests/test/add.test.js":
        'const assert = require("node:assert");\nconst { test } = require("node:test");\nconst { add } = require("../index.js");\ntest("adds", () => assert.strictEqual(add(1, 2), 3));\n',
      "reference.patch":
        "diff --git a/index.js b/index.js\n--- a/index.js\n+++ b/index.js\n@@ -1 +1 @@\n-exports.add = (a, b) => a - b;\n+exports.add = (a, b) => a + b;\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(dir, rel, ".."), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const { code, stderr } = await gagar("tasks", "check", dir, "--run", "--sandbox", "bwrap");
    expect(code, stderr).toBe(3);
    expect(stderr).toContain('the task cannot be run: setup command "npm ci --ignore-scripts" exited 1');
    expect(stderr).toContain("Missing: chai@3.5.0 from lock file");
  }, 240_000);
});
