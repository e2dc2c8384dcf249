import { VITEST_HARNESS } from "./harness-surfaces.ts";
import { checkJsId, fileOfId, JS_TEST_FILE } from "./js-ids.ts";
import type { TestRunner } from "./types.ts";
import { planWrapped } from "./wrapped-js.ts";

/**
 * vitest: one run over a wrapper per test file (wrapped-js.ts) with vitest's own JUnit reporter, whose
 * testcases carry the file as `classname` and the describe path joined by " > " as `name`. Canaries
 * import `test`/`expect` from vitest and use node's `assert` and a bare `throw`. Its processes get a
 * larger RLIMIT_AS than the default (WebAssembly); the wall timeout and oom_score_adj still bound them.
 */
export const vitestRunner: TestRunner = {
  name: "vitest",
  idStyle: "titles",
  needsTestFiles: true,
  needsCanaryCommand: false,
  defaultCommand: ["node_modules/.bin/vitest", "run", "--reporter=junit", "--outputFile={junit}", "{tests}"],
  requires: ["{junit}", "{tests}"],
  // vite's parsers are WebAssembly, whose instances reserve ~10 GiB of address space each.
  memoryBytes: 32 * 2 ** 30,
  fileOf: fileOfId,
  python: false,
  harness: VITEST_HARNESS,
  isTestFile: (path) => JS_TEST_FILE.test(path),
  checkId: checkJsId,
  plan: ({ command, testFiles, sources }) =>
    planWrapped({
      command,
      testFiles,
      label: "vitest",
      importFrom: "vitest",
      support: [],
      sources,
      harness: VITEST_HARNESS,
    }),
};
