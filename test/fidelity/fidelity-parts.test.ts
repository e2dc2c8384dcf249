import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { TestStatus } from "../../src/contracts/verdict.ts";
import { InputError } from "../../src/errors.ts";
import { compareObserved } from "./compare.ts";
import { refusalOf } from "./fidelity.ts";
import { loadManifest, MANIFEST_PATH, ONLY_VARIABLE, selectRepositories } from "./manifest.ts";
import { renderTables, replaceTables, summarizeFindings } from "./table.ts";
import { classifyPath } from "./upstream.ts";

/** The fidelity suite's pure parts; the suite itself is test/realcode-fidelity.network.test.ts. */

const status = fc.constantFrom<TestStatus>("passed", "failed", "error", "skipped", "xfail");
const observed = fc.dictionary(fc.stringMatching(/^t\/[a-z_]{1,8}\.py::[a-z]{1,6}$/), status);

describe("compareObserved", () => {
  it("agrees with itself, and every test is counted once", () => {
    fc.assert(
      fc.property(observed, observed, (a, b) => {
        expect(compareObserved(a, a)).toEqual({ agreeing: Object.keys(a).length, differences: [] });
        const { agreeing, differences } = compareObserved(a, b);
        expect(agreeing + differences.length).toBe(new Set([...Object.keys(a), ...Object.keys(b)]).size);
      }),
    );
  });

  it("is symmetric up to the sides", () => {
    fc.assert(
      fc.property(observed, observed, (a, b) => {
        const ab = compareObserved(a, b);
        const ba = compareObserved(b, a);
        expect(ba.agreeing).toBe(ab.agreeing);
        expect(ba.differences).toEqual(
          ab.differences.map((d) => ({ id: d.id, guarded: d.bare, bare: d.guarded })),
        );
      }),
    );
  });

  it("reports a changed status and a test one run lacks", () => {
    const { agreeing, differences } = compareObserved(
      { "t.py::a": "passed", "t.py::b": "passed", "t.py::c": "failed" },
      { "t.py::a": "passed", "t.py::b": "failed" },
    );
    expect(agreeing).toBe(1);
    expect(differences).toEqual([
      { id: "t.py::b", guarded: "passed", bare: "failed" },
      { id: "t.py::c", guarded: "failed", bare: "missing" },
    ]);
  });

  it("pairs parameter ids that embed a run's own value by test and status, and nothing else", () => {
    const { agreeing, differences } = compareObserved(
      { "t.py::when[07:16:33 2026-12-05]": "passed", "t.py::when[12-05-2026 07:16:33]": "failed" },
      { "t.py::when[07:16:58 2026-12-05]": "passed", "t.py::when[12-05-2026 07:16:58]": "passed" },
    );
    expect(agreeing).toBe(1);
    expect(differences).toEqual([
      { id: "t.py::when[12-05-2026 07:16:33]", guarded: "failed", bare: "missing" },
      { id: "t.py::when[12-05-2026 07:16:58]", guarded: "missing", bare: "passed" },
    ]);
  });
});

describe("refusalOf", () => {
  it("shows an import's refusal as the field and why, without the scratch instance file", () => {
    const file = "/tmp/gagar-fidelity-x/instances/task-a.jsonl";
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom("FAIL_TO_PASS", "environment", "patch", "test_patch"), { nil: undefined }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.string({ minLength: 1 }),
        (field, line, detail) => {
          const message = new InputError({ file, line, field }, detail).message;
          expect(refusalOf(message, file)).toBe(field ? `${field}: ${detail}` : detail);
        },
      ),
    );
    expect(refusalOf("SandboxError: bwrap is missing", file)).toBe("SandboxError: bwrap is missing");
  });
});

describe("classifyPath", () => {
  const globs = { tests: ["tests/**", "src/**/*.spec.ts"], code: ["src/**"] };
  it("puts a path in the tests first, then in the code, else nowhere", () => {
    expect(classifyPath("tests/test_x.py", globs)).toBe("tests");
    expect(classifyPath("src/parse.spec.ts", globs)).toBe("tests");
    expect(classifyPath("src/index.ts", globs)).toBe("code");
    expect(classifyPath("CHANGELOG.md", globs)).toBe("other");
  });
});

describe("the tables", () => {
  const critical = { kind: "test-source-read", severity: "critical" as const, message: "m" };
  it("summarize findings by severity and kind", () => {
    expect(summarizeFindings([])).toBe("none");
    expect(
      summarizeFindings([critical, critical, { kind: "debug-leftover", severity: "minor", message: "m" }]),
    ).toBe("2 critical (test-source-read); 1 minor (debug-leftover)");
  });

  it("show every task and suite, and replace only what stands between the doc's markers", () => {
    const tables = renderTables({
      tasks: [
        {
          repository: "o/n",
          task: "t-1",
          fix: "a".repeat(40),
          base: "b".repeat(40),
          runner: "pytest",
          failToPass: 2,
          passToPass: 5,
          gold: { reason: "passed", findings: [] },
          empty: { reason: "tests-failed", findings: [] },
        },
        {
          repository: "o/m",
          task: "t-2",
          fix: "1.0.1",
          base: "1.0.0",
          runner: "mocha",
          importError: "boom\nmore",
        },
      ],
      suites: [
        {
          repository: "o/n",
          at: "b".repeat(40),
          runner: "pytest",
          files: 3,
          guarded: { reason: "forged", findings: [critical], tests: 10, ms: 300 },
          bare: { reason: "tests-failed", findings: [], tests: 10, ms: 200 },
          differences: [],
          agreeing: 10,
        },
      ],
    });
    expect(tables).toContain(
      "| o/n | t-1 | aaaaaaaaaaaa | bbbbbbbbbbbb | pytest | 2 | 5 | passed | none | tests-failed |",
    );
    expect(tables).toContain("| o/m | t-2 | 1.0.1 | 1.0.0 | mocha | — | — | import failed: boom | — | — |");
    expect(tables).toContain(
      "| o/n | bbbbbbbbbbbb | pytest | 3 | 10 | 10/10 | forged | 1 critical (test-source-read) | 1.50 |",
    );
    const doc = "intro\n<!-- fidelity-table:begin -->\nold\n<!-- fidelity-table:end -->\noutro\n";
    expect(replaceTables(doc, "NEW\n")).toBe(
      "intro\n<!-- fidelity-table:begin -->\nNEW\n<!-- fidelity-table:end -->\noutro\n",
    );
    expect(() => replaceTables("no markers", "x")).toThrow(/markers/);
  });
});

describe("the manifest", () => {
  const dir = mkdtempSync(join(tmpdir(), "gagar-fidelity-manifest-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("that the suite uses loads", () => {
    const manifest = loadManifest(fileURLToPath(MANIFEST_PATH));
    expect(manifest.repositories.flatMap((r) => r.tasks).length).toBeGreaterThanOrEqual(20);
  });

  it("refuses a task whose revision is not of its source's kind, naming the field", () => {
    const manifest = JSON.parse(JSON.stringify(loadManifest(fileURLToPath(MANIFEST_PATH))));
    manifest.repositories[0].tasks[1].base = "1.2.3";
    const file = join(dir, "manifest.json");
    writeFileSync(file, JSON.stringify(manifest));
    const error = (() => {
      try {
        loadManifest(file);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).location).toEqual({ file, field: "repositories.0.tasks.1.base" });
  });

  it("refuses a task id used twice", () => {
    const manifest = JSON.parse(JSON.stringify(loadManifest(fileURLToPath(MANIFEST_PATH))));
    manifest.repositories[1].tasks[0].id = manifest.repositories[0].tasks[0].id;
    const file = join(dir, "twice.json");
    writeFileSync(file, JSON.stringify(manifest));
    expect(() => loadManifest(file)).toThrow(/already used at repositories\.0\.tasks\.0/);
  });
});

describe("selectRepositories", () => {
  const manifest = loadManifest(fileURLToPath(MANIFEST_PATH));
  const names = manifest.repositories.map((r) => r.name);

  it("keeps the whole manifest when nothing is named, and exactly the named repositories otherwise", () => {
    expect(selectRepositories(manifest, undefined)).toBe(manifest);
    expect(selectRepositories(manifest, " , ")).toBe(manifest);
    fc.assert(
      fc.property(fc.subarray(names, { minLength: 1 }), (chosen) => {
        const selected = selectRepositories(manifest, ` ${chosen.join(" ,")} `);
        expect(selected.repositories.map((r) => r.name)).toEqual(names.filter((n) => chosen.includes(n)));
      }),
    );
  });

  it("refuses a name the manifest does not have, naming it", () => {
    expect(() => selectRepositories(manifest, `${names[0]},nobody/nothing`)).toThrow(
      new RegExp(`^${ONLY_VARIABLE}: no repository "nobody/nothing" in the manifest`),
    );
  });
});
