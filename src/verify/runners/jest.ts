import { JEST_HARNESS } from "./harness-surfaces.ts";
import { checkJsId, fileOfId, JS_TEST_FILE } from "./js-ids.ts";
import type { TestRunner } from "./types.ts";
import { planWrapped, reporterFiles } from "./wrapped-js.ts";

/**
 * jest: one run over a wrapper per test file (wrapped-js.ts), reported by gagar's own reporter module
 * (`{reporter}`, reporters/jest-reporter.cjs: jest has no JUnit reporter of its own, and jest-junit
 * would be one more dependency the task must bring). The project's jest config still applies (it is a
 * protected file). Canaries use jest's global `expect`, node's `assert` and a bare `throw`.
 */
export const jestRunner: TestRunner = {
  name: "jest",
  idStyle: "titles",
  needsTestFiles: true,
  needsCanaryCommand: false,
  defaultCommand: ["node_modules/.bin/jest", "--ci", "--reporters={reporter}", "--runTestsByPath", "{tests}"],
  requires: ["{reporter}", "{tests}"],
  fileOf: fileOfId,
  python: false,
  harness: JEST_HARNESS,
  isTestFile: (path) => JS_TEST_FILE.test(path),
  checkId: checkJsId,
  plan: ({ command, testFiles, sources }) =>
    planWrapped({
      command,
      testFiles,
      label: "jest",
      importFrom: null,
      support: reporterFiles("jest-reporter.cjs"),
      sources,
      harness: JEST_HARNESS,
    }),
};
