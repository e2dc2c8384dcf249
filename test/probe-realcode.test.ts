/**
 * Behavioural probes on real repositories' honest rewrites (GAGAR_REALCODE): upstream commits that
 * made a function faster or simpler without meaning to change what it does. The commit is the
 * reference; the candidate is the same tree with the commit's source changes undone (the code before
 * the rewrite), which passes the commit's tests. A twin of the reference is a second candidate, so the
 * oracle is confident wherever the reference is stable: the harshest setting for an honest variant
 * (a majority that behaves exactly like the reference). Neither may get a critical finding.
 *
 * The probes run with the real runners outside the sandbox (phase 1 of issue 21): Debian's pytest
 * (with its freezegun and hypothesis), and for cookie the vitest gagar itself is tested with.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareProbeRuns } from "../src/probe/compare.ts";
import { planProbes } from "../src/probe/plan.ts";
import { DEBIAN_PYTHON, type JsTools, runProbes, runTests } from "./support/probe-harness.ts";
import { checkoutRealcode, realcodeSkip } from "./support/realcode.ts";

interface Rewrite {
  repo: string;
  commit: string;
  what: string;
  runner: "pytest" | "vitest";
  tests: string[];
  env?: Record<string, string>;
  /** Files the checkout needs to run its tests here (generated at build time upstream). */
  setup?: Record<string, string>;
}

const VITEST_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    resolveJsonModule: true,
  },
});

const REWRITES: Rewrite[] = [
  {
    repo: "python-humanize/humanize",
    commit: "bde649fc2927c022dd2a9eedba2a1ed677b97902",
    what: "Performance improvements: 1.07x - 8.4x (#315)",
    runner: "pytest",
    tests: ["tests/test_number.py", "tests/test_filesize.py", "tests/test_lists.py", "tests/test_time.py"],
    env: { PYTHONPATH: "src" },
    setup: { "src/humanize/_version.py": '__version__ = version = "0.0.0"\n' },
  },
  {
    repo: "python-humanize/humanize",
    commit: "e7c04f429ddf48ac434037d07eb2ca3c7435ea88",
    what: "Refactor: simplify `scientific()` (#313)",
    runner: "pytest",
    tests: ["tests/test_number.py"],
    env: { PYTHONPATH: "src" },
    setup: { "src/humanize/_version.py": '__version__ = version = "0.0.0"\n' },
  },
  {
    repo: "python-humanize/humanize",
    commit: "bb99238e6f31917f177d5922ab8e62f33d1cc36f",
    what: "Optimize `naturalsize` algorithm by using `math.log` (#253)",
    runner: "pytest",
    tests: ["tests/test_filesize.py"],
    env: { PYTHONPATH: "src" },
    setup: { "src/humanize/_version.py": '__version__ = version = "0.0.0"\n' },
  },
  {
    repo: "marshmallow-code/marshmallow",
    commit: "4f1869cc488fc4fae1fe0f9d03780dcddfbb7a4f",
    what: "Minor refactor of get_func_args (#1399)",
    runner: "pytest",
    tests: ["tests/test_utils.py", "tests/test_decorators.py"],
    env: { PYTHONPATH: "src" },
  },
  {
    repo: "marshmallow-code/marshmallow",
    commit: "593b7fecd4eb3bf24480d18b942703ee9ccf8a04",
    what: "Simplify tuple-keyed hook name and config dicts",
    runner: "pytest",
    tests: ["tests/test_decorators.py", "tests/test_schema.py"],
    env: { PYTHONPATH: "src" },
  },
  {
    repo: "dateutil/dateutil",
    commit: "16561fc99361979e88cccbd135393b06b1af7e90",
    what: "Performance improvements in resolve_from_stridxs",
    runner: "pytest",
    tests: ["dateutil/test/test_parser.py"],
    env: { PYTEST_ADDOPTS: "-o filterwarnings=ignore" },
  },
  {
    repo: "dateutil/dateutil",
    commit: "1426acd8d3e81f02cd0f2db0a5b197d7f7239934",
    what: "Simplify parser._timelex handling of bytes and bytearray",
    runner: "pytest",
    tests: ["dateutil/test/test_parser.py"],
    env: { PYTEST_ADDOPTS: "-o filterwarnings=ignore" },
  },
  {
    repo: "jshttp/cookie",
    commit: "15a1d8c9a802a50bc0db90b25004dce2a42d42fb",
    what: "Improve `stringifySetCookie` perf for node < 22 (#268)",
    runner: "vitest",
    tests: ["src/stringify-set-cookie.spec.ts"],
    setup: { "tsconfig.json": VITEST_TSCONFIG },
  },
  {
    repo: "jshttp/cookie",
    commit: "e264dfad193f71de57959f4b8d5189bfa948bd04",
    what: "Faster stringify cookie with benchmarks (#262)",
    runner: "vitest",
    tests: ["src/stringify-cookie.spec.ts", "src/stringify-set-cookie.spec.ts"],
    setup: { "tsconfig.json": VITEST_TSCONFIG },
  },
];

const OWN_NODE_MODULES = join(import.meta.dirname, "..", "node_modules");
const root = mkdtempSync(join(tmpdir(), "gagar-probe-realcode-"));
const summary: string[] = [];
afterAll(() => {
  if (summary.length)
    process.stdout.write(`\nbehavioural probes on real honest rewrites:\n${summary.join("\n")}\n`);
  rmSync(root, { recursive: true, force: true });
});

function pythonSkip(): string | undefined {
  try {
    execFileSync(DEBIAN_PYTHON, ["-c", "import pytest, freezegun, hypothesis"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "Debian's python3-pytest, python3-freezegun and python3-hypothesis are needed";
  }
}

const skip = realcodeSkip([...new Set(REWRITES.map((r) => r.repo))]) ?? pythonSkip();

describe.skipIf(skip !== undefined)(
  `behavioural probes on real honest rewrites${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    it.each(REWRITES)(
      "give no critical finding to the code before $repo $what",
      async (rewrite) => {
        const dir = join(root, `${rewrite.repo.replace("/", "+")}-${rewrite.commit.slice(0, 8)}`);
        const clone = join(dir, "clone");
        checkoutRealcode(rewrite.repo, rewrite.commit, clone);
        const git = (...args: string[]) =>
          execFileSync("git", ["-C", clone, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
        const changed = git("diff", "--name-only", `${rewrite.commit}^`, rewrite.commit)
          .split("\n")
          .filter(
            (f) => /\.(py|[cm]?[jt]s)$/.test(f) && !/(^|\/)tests?\/|\.spec\.|\.test\.|\.bench\./.test(f),
          );
        expect(changed.length).toBeGreaterThan(0);
        const tools: JsTools | undefined =
          rewrite.runner === "vitest" ? { nodeModules: OWN_NODE_MODULES } : undefined;
        const tree = (name: string, before: boolean) => {
          const ws = join(dir, name);
          mkdirSync(ws, { recursive: true });
          execFileSync("sh", ["-c", `git -C '${clone}' archive ${rewrite.commit} | tar -x -C '${ws}'`]);
          if (before)
            for (const file of changed) {
              const text = git("show", `${rewrite.commit}^:${file}`);
              mkdirSync(dirname(join(ws, file)), { recursive: true });
              writeFileSync(join(ws, file), text);
            }
          for (const [file, text] of Object.entries(rewrite.setup ?? {})) writeFileSync(join(ws, file), text);
          if (tools) symlinkSync(tools.nodeModules, join(ws, "node_modules"));
          return ws;
        };
        const reference = tree("reference", false);
        const candidate = tree("before", true);
        const env = rewrite.env ?? {};
        for (const ws of [reference, candidate])
          expect(
            runTests(ws, rewrite.runner, rewrite.tests, tools, env).status,
            `${ws} passes the commit's tests`,
          ).toBe(0);

        const tests = new Map(rewrite.tests.map((f) => [f, readFileSync(join(reference, f), "utf8")]));
        const plan = await planProbes({ runner: rewrite.runner, tests, maxProbesPerTest: 8 });
        const run = (ws: string) => runProbes(ws, plan, tools, env).run;
        const comparison = compareProbeRuns({
          probes: plan.probes,
          reference: [run(reference), run(reference)],
          candidates: [
            { id: "before-the-rewrite", runs: [run(candidate), run(candidate)] },
            { id: "twin-of-the-reference", runs: [run(reference)] },
          ],
        });
        const before = comparison.candidates[0]!;
        summary.push(
          `  ${rewrite.repo} ${rewrite.commit.slice(0, 8)} (${rewrite.runner}): ${plan.probes.length} probes, ${comparison.unstable.length} unstable slots, ${before.divergences.filter((d) => d.confident).length} confident divergences, ${before.findings.filter((f) => f.severity === "critical").length} critical`,
        );
        for (const c of comparison.candidates)
          expect(c.findings.filter((f) => f.severity === "critical").map((f) => f.message)).toEqual([]);
      },
      1_800_000,
    );
  },
);
