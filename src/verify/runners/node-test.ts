import { assertCanaries, expandCommand, nonce, wrapperPath } from "./canary.ts";
import { handOffLines, jsHarness, NODE_TEST_HARNESS } from "./harness-surfaces.ts";
import { jsInlineCanaries } from "./inline-canaries.ts";
import { checkJsId, fileOfId, JS_TEST_FILE, jsId, suiteTitles } from "./js-ids.ts";
import type { PlannedRun, TestPlan, TestRunner } from "./types.ts";
import { REPORT_PATH } from "./types.ts";

/**
 * node:test: one run per test file, because node's JUnit reporter does not say which file a testcase
 * came from; the run's cases get the ids `<file>::<describe> > <name>` (js-ids.ts; the reporter
 * double-escapes `"`, undone here). `{tests}` is a wrapper module beside the file that imports it and
 * then declares the canaries (node:test runs every file in its own process): must-fail through
 * `assert.strictEqual` and a bare `throw`. The test file itself gets must-fail canaries in its own
 * style appended (inline-canaries.ts).
 */
export const nodeTestRunner: TestRunner = {
  name: "node:test",
  idStyle: "titles",
  needsTestFiles: true,
  needsCanaryCommand: false,
  defaultCommand: [
    "node",
    "--test",
    "--test-reporter=junit",
    "--test-reporter-destination={junit}",
    "{tests}",
  ],
  requires: ["{junit}", "{tests}"],
  fileOf: fileOfId,
  python: false,
  harness: NODE_TEST_HARNESS,
  isTestFile: (path) => JS_TEST_FILE.test(path),
  checkId: checkJsId,
  plan({ command, testFiles, sources }) {
    const harness = jsHarness(NODE_TEST_HARNESS, sources);
    const files = testFiles.map((file) => {
      const source = sources?.get(file);
      return {
        file,
        wrapper: nodeWrapper(file, harness.modules),
        inline: source ? jsInlineCanaries(file, source) : null,
      };
    });
    const runs: PlannedRun[] = files.map(({ file, wrapper, inline }) => ({
      label: file,
      argv: expandCommand(command, { junit: REPORT_PATH }, [wrapper.path]),
      keysOf: (c) => [jsId(file, suiteTitles(c))],
      idOf: (c) => jsId(file, suiteTitles(c)),
      canaries: [...wrapper.checks, ...(inline?.checks ?? [])],
    }));
    return {
      runs,
      files: files.flatMap((f) => [
        f.wrapper,
        ...(f.inline ? [{ path: f.file, content: f.inline.content }] : []),
      ]),
      support: [],
      locate(id) {
        const run = files.findIndex((f) => f.file === fileOfId(id));
        return run < 0 ? null : { run, key: id };
      },
      harness: harness.objects,
    } satisfies TestPlan;
  },
};

/** The wrapper module of a test file: it loads it, hands the assertion libraries it imports to the guard,
 * has it check the harness after every test, and declares the canaries. */
function nodeWrapper(testFile: string, modules: readonly string[]) {
  const path = wrapperPath(testFile, nonce()).replace(/\.[cm]?[jt]sx?$/, ".mjs");
  const canaries = assertCanaries("test", testFile);
  const content = [
    `import ${JSON.stringify(`./${testFile.slice(testFile.lastIndexOf("/") + 1)}`)};`,
    'import { afterEach as gagarAfterEach, test } from "node:test";',
    'import assert from "node:assert";',
    ...handOffLines("import", modules, "gagarAfterEach", true),
    "",
    ...canaries.lines,
  ].join("\n");
  return { path, content, checks: canaries.checks };
}
