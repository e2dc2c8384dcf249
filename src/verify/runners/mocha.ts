import { posix } from "node:path";
import type { JunitCase } from "../verdict/junit-report.ts";
import { assertCanaries, expandCommand, nonce } from "./canary.ts";
import { handOffLines, jsHarness, MOCHA_HARNESS } from "./harness-surfaces.ts";
import { inlineJsFiles } from "./inline-canaries.ts";
import { fileOfId, JS_TEST_FILE, jsId } from "./js-ids.ts";
import type { TestPlan, TestRunner } from "./types.ts";
import { REPORT_PATH, SUPPORT_DIR } from "./types.ts";
import { reporterFiles } from "./wrapped-js.ts";

/**
 * mocha: one run over every test file and a canary spec, all in one process (mocha does not isolate
 * files), reported by gagar's own reporter module (`{reporter}`, reporters/mocha-reporter.cjs), since
 * mocha's xunit reporter names no file.
 *
 * Ids: `<file>::<describe> > <nested describe> > <test title>` as for the other JavaScript runners. Mocha
 * and the benchmarks built on it also name tests without a file: by their title path
 * (`describe > test`, Multi-SWE-bench), or by mocha's full title, the titles joined by single spaces
 * (`describe nested test title`, what `Test#fullTitle()` prints and SWE-PolyBench lists); with a file,
 * `<file>::<full title>` too. A case is indexed under every one of these spellings, so an id matches
 * whichever reported test it spells. A space is legal inside a title, so a full title can spell two
 * tests (`A` › `B c` and `A B` › `c`), and a title path or full title can recur in several files: the
 * id then stands for all of them, every one must pass (the worst status counts), and `gagar tasks
 * check` says how many tests such an id matched. A failing `before`/`after` hook is reported as an
 * error case of the hook's own title, and the tests it kept from running are missing.
 */
export const mochaRunner: TestRunner = {
  name: "mocha",
  idStyle: "titles",
  needsTestFiles: true,
  needsCanaryCommand: false,
  defaultCommand: ["node_modules/.bin/mocha", "--reporter={reporter}", "{tests}"],
  requires: ["{reporter}", "{tests}"],
  python: false,
  harness: MOCHA_HARNESS,
  fileOf: fileOfId,
  isTestFile: (path) => JS_TEST_FILE.test(path),
  checkId: (id) => (id.trim() ? null : "empty test id"),
  plan({ command, testFiles, sources }) {
    const inline = inlineJsFiles(testFiles, sources);
    const dir = testFiles.length ? posix.dirname(testFiles[0]!) : ".";
    const harness = jsHarness(MOCHA_HARNESS, sources);
    const canary = mochaCanary(dir === "." ? "" : `${dir}/`, harness.modules);
    const support = reporterFiles("mocha-reporter.cjs");
    const values = { junit: REPORT_PATH, reporter: `${SUPPORT_DIR}/${support[0]!.path}` };
    const titles = (c: JunitCase) => c.name.split(" > ");
    return {
      runs: [
        {
          label: "mocha",
          argv: expandCommand(command, values, [...testFiles, canary.path]),
          keysOf: (c) => mochaKeys(c.file ?? c.classname, titles(c)),
          idOf: (c) => jsId(c.file ?? c.classname, titles(c)),
          canaries: [...canary.checks, ...inline.flatMap((f) => f.checks)],
        },
      ],
      files: [canary, ...inline],
      support,
      locate: (id) => ({ run: 0, key: id }),
      harness: harness.objects,
    } satisfies TestPlan;
  },
};

/** The spellings a reported case is found by (mocha.ts above): with and without its file, as a title path and as a full title. */
export function mochaKeys(file: string, titles: readonly string[]): string[] {
  const full = titles.join(" ");
  return [...new Set([jsId(file, titles), titles.join(" > "), full, jsId(file, [full])])];
}

/**
 * The canary spec: node's assert canaries, and a root hook that hands the assertion libraries the
 * hidden tests import to the guard before any test runs (mocha's own classes the guard finds itself;
 * gagar's reporter asks for the checkpoints).
 */
function mochaCanary(dir: string, modules: readonly string[]) {
  const path = `${dir}${nonce()}.spec.cjs`;
  const canaries = assertCanaries("it", path);
  const content = [
    'const assert = require("node:assert");',
    "",
    ...canaries.lines,
    "before(async () => {",
    ...handOffLines("import", modules, null, true),
    "});",
    "",
  ].join("\n");
  return { path, content, checks: canaries.checks };
}
