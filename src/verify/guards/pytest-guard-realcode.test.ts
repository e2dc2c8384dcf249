import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutRealcode, realcodeSkip } from "../../../test/support/realcode.ts";
import { type PytestSession, runPytestSession, workspaceFiles } from "./pytest-session.test-support.ts";

/**
 * The pytest guard on real repositories' own code and tests (pinned commits, from GAGAR_REALCODE; their
 * test dependencies from Debian: python3-pytest, -hypothesis, -freezegun, -pytest-asyncio, -simplejson,
 * -six, -colorama, -exceptiongroup, -railroad-diagrams, -jinja2, -matplotlib):
 *
 * - regressions: the false findings the guard used to report on them (structlog's and loguru's
 *   exception and stack formatting, loguru taking its caller's frame on every log call, pyparsing's
 *   exceptions explaining their traceback through inspect, structlog setting logging's logger class),
 *   and a real library opening the path a test handed it (ambiguous, not forged);
 * - whole suites: every test's outcome is the same with the guard loaded as a verification loads it and
 *   without it, and the guard finds no violation in the repository's own code. Every test module of
 *   the suite is treated as a hidden test. The commands set PYTHONPATH themselves where the layout needs
 *   it, the ways tasks do (python-path.ts). The guard's cost is printed, not asserted.
 */

const STRUCTLOG = { repo: "hynek/structlog", commit: "025edaf799c6d6d511ab672d14c2ba8e885c4c36" };
const LOGURU = { repo: "Delgan/loguru", commit: "2a17be730e111cf874d0bf967c4c5da15b7e4670" };
const PYPARSING = { repo: "pyparsing/pyparsing", commit: "efd56db4e59f36b1673ce0eb0823e3afaa9d1201" };
const DATEUTIL = { repo: "dateutil/dateutil", commit: "c981f9c7aa91b83cc9bd33a09ecee9e751b06e8d" };
const SKIP = realcodeSkip([STRUCTLOG.repo, LOGURU.repo, PYPARSING.repo, DATEUTIL.repo]);

const PYTHON = ["/usr/bin/python3", "-B", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"];
// structlog's config asks for options of a newer pytest-asyncio than Debian's (--strict-config fails).
const STRUCTLOG_PYTEST = [
  ...PYTHON,
  "-o",
  "addopts=--import-mode=importlib",
  "--continue-on-collection-errors",
];

const scratch = mkdtempSync(join(tmpdir(), "gagar-guard-realcode-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const checkouts = new Map<string, string>();

function checkout(source: { repo: string; commit: string }): string {
  let dir = checkouts.get(source.repo);
  if (!dir) {
    dir = join(scratch, source.repo.replace("/", "+"));
    checkoutRealcode(source.repo, source.commit, dir);
    checkouts.set(source.repo, dir);
  }
  return dir;
}

const testModules = (dir: string) =>
  workspaceFiles(dir).filter((f) => /(^|\/)(test_[^/]*|conftest)\.py$/.test(f) && f.startsWith("tests/"));

describe.skipIf(SKIP !== undefined)(
  `the pytest guard on real code${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    it("finds nothing in structlog's own formatting of exceptions and stacks, nor in its setting logging's logger class", async () => {
      const dir = checkout(STRUCTLOG);
      const files = [
        "tests/test_frames.py",
        "tests/test_dev.py",
        "tests/processors/test_processors.py",
        "tests/test_stdlib.py",
      ];
      const session = await runPytestSession({
        dir,
        command: [...STRUCTLOG_PYTEST, "-q", ...files],
        hidden: testModules(dir),
        guard: true,
        env: { PYTHONPATH: "src" },
      });
      expect(session.outcomes.size, session.output).toBeGreaterThan(100);
      expect(session.guard.violations).toEqual([]);
      expect(session.guard.ambiguous).toEqual([]);
    }, 1_800_000);

    it("finds nothing in loguru formatting the tests' exceptions and taking its callers' frames", async () => {
      const dir = checkout(LOGURU);
      const files = [
        "tests/test_exceptions_catch.py",
        "tests/test_add_option_backtrace.py",
        "tests/test_opt.py",
      ];
      const session = await runPytestSession({
        dir,
        command: [...PYTHON, "-q", ...files],
        hidden: testModules(dir),
        guard: true,
      });
      expect(session.outcomes.size, session.output).toBeGreaterThan(100);
      expect(session.guard.violations).toEqual([]);
      expect(session.guard.ambiguous).toEqual([]);
    }, 1_800_000);

    it("finds nothing in pyparsing's exceptions explaining their traceback, and only an ambiguous read where the test hands it its own file", async () => {
      const dir = checkout(PYPARSING);
      // How a test hands a library a path: pyparsing's parse_file opens what it is given.
      writeFileSync(
        join(dir, "tests", "test_handed_path.py"),
        'import pyparsing as pp\n\n\ndef test_parse_file_of_this_module():\n    words = pp.Word(pp.printables)[1, ...]\n    assert "test_parse_file_of_this_module():" in words.parse_file(__file__).as_list()\n',
      );
      let session: PytestSession;
      try {
        session = await runPytestSession({
          dir,
          command: [...PYTHON, "-q", "tests/test_simple_unit.py", "tests/test_handed_path.py"],
          hidden: testModules(dir),
          guard: true,
        });
      } finally {
        rmSync(join(dir, "tests", "test_handed_path.py"));
      }
      expect(session.outcomes.size, session.output).toBeGreaterThan(10);
      expect(
        [...session.outcomes.values()].filter((o) => o !== "passed"),
        session.output,
      ).toEqual([]);
      expect(session.guard.violations).toEqual([]);
      expect(session.guard.ambiguous.map((f) => [f.kind, f.file, f.severity])).toEqual([
        ["test-source-read", "pyparsing/core.py", "major"],
      ]);
    }, 1_800_000);

    const SUITES: [string, () => { dir: string; command: string[] }][] = [
      [
        "structlog",
        () => ({
          dir: checkout(STRUCTLOG),
          command: ["env", "PYTHONPATH=src", ...STRUCTLOG_PYTEST, "-q", "tests"],
        }),
      ],
      [
        "dateutil",
        () => ({
          dir: checkout(DATEUTIL),
          // Its unknown `no_cover` mark is an error under its own filterwarnings=error.
          command: [
            "sh",
            "-c",
            'PYTHONPATH=src exec "$@"',
            "sh",
            ...PYTHON,
            "-q",
            "-W",
            "ignore::pytest.PytestUnknownMarkWarning",
            "tests",
          ],
        }),
      ],
      ["loguru", () => ({ dir: checkout(LOGURU), command: [...PYTHON, "-q", "tests"] })],
      [
        "pyparsing",
        () => ({
          dir: checkout(PYPARSING),
          // All but three CPU-bound randomised tests (minutes each), which touch nothing the guard sees.
          command: [
            ...PYTHON,
            "-q",
            "-k",
            "not NestedExpressionRandom and not make_compressed_re_random",
            "tests",
          ],
        }),
      ],
    ];

    for (const [name, suite] of SUITES) {
      it(`gives every test of ${name}'s own suite the same outcome with and without the guard`, async () => {
        const { dir, command } = suite();
        const hidden = testModules(dir);
        const run = (guard: boolean) =>
          runPytestSession({ dir, command, hidden, guard, timeoutMs: 3_000_000 });
        const bare = await run(false);
        const guarded = await run(true);
        expect(bare.outcomes.size, bare.output.slice(-3000)).toBeGreaterThan(100);
        expect(guarded.guard.started).toBe(true);
        // A test whose outcome differs between two runs without the guard is flaky, not the guard's doing.
        let disagree = differing(bare, guarded);
        if (disagree.length) {
          const again = await run(false);
          const flaky = new Set(differing(bare, again));
          disagree = disagree.filter((id) => !flaky.has(id));
        }
        expect(disagree).toEqual([]);
        expect(guarded.guard.violations).toEqual([]);
        const outcomes = [...bare.outcomes.values()];
        console.log(
          `${name}: ${bare.outcomes.size} tests (${outcomes.filter((o) => o === "passed").length} passed), ` +
            `same outcome with the guard; ${guarded.guard.ambiguous.length} ambiguous findings; ` +
            `wall time with/without the guard ${(guarded.wallMs / bare.wallMs).toFixed(2)}`,
        );
      }, 3_600_000);
    }
  },
);

function differing(a: PytestSession, b: PytestSession): string[] {
  const ids = new Set([...a.outcomes.keys(), ...b.outcomes.keys()]);
  return [...ids].filter((id) => a.outcomes.get(id) !== b.outcomes.get(id)).sort();
}
