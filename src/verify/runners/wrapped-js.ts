import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { JunitCase } from "../verdict/junit-report.ts";
import { expandCommand, ints, loadStatement, nonce, wrapperPath } from "./canary.ts";
import { type HarnessObject, handOffLines, jsHarness } from "./harness-surfaces.ts";
import { inlineJsFiles } from "./inline-canaries.ts";
import { fileOfId, isEsm, jsId } from "./js-ids.ts";
import type { CanaryCheck, PlanFile, TestPlan } from "./types.ts";
import { REPORT_PATH, SUPPORT_DIR } from "./types.ts";

/**
 * What jest and vitest share: both isolate each test file (a module registry, a worker), so every test
 * file gets a wrapper beside it (canary.ts `wrapperPath`) that loads it and then declares the canaries,
 * and one run covers all wrappers. Reported cases carry the wrapper's path, which is mapped back to the
 * test file it wraps: ids are `<file>::<describe> > <test>` (js-ids.ts).
 */
export interface WrappedJsOptions {
  command: readonly string[];
  testFiles: readonly string[];
  label: string;
  /** Where the framework's `test`/`expect` come from in a wrapper (`vitest`), or null for globals (jest). */
  importFrom: string | null;
  support: PlanFile[];
  sources?: ReadonlyMap<string, string>;
  /** The framework's objects the guard watches (the adapter's `harness`). */
  harness: readonly HarnessObject[];
}

export function planWrapped(options: WrappedJsOptions): TestPlan {
  const harness = jsHarness(options.harness, options.sources);
  const wrappers = options.testFiles.map((file) => wrapper(file, options.importFrom, harness.modules));
  const inline = inlineJsFiles(options.testFiles, options.sources);
  const byWrapper = new Map(wrappers.map((w) => [w.path, w.file]));
  const fileOf = (c: JunitCase) => {
    const reported = c.file || c.classname;
    return byWrapper.get(reported) ?? reported;
  };
  const idOf = (c: JunitCase) => jsId(fileOf(c), splitTitles(c.name));
  const support = options.support;
  const reporter = support.find((f) => f.path.includes("reporter"));
  const values = {
    junit: REPORT_PATH,
    reporter: reporter ? `${SUPPORT_DIR}/${reporter.path}` : "{reporter}",
  };
  return {
    runs: [
      {
        label: options.label,
        argv: expandCommand(
          options.command,
          values,
          wrappers.map((w) => w.path),
        ),
        keysOf: (c) => [idOf(c)],
        idOf,
        canaries: [...wrappers, ...inline].flatMap((w) => w.checks),
      },
    ],
    files: [...wrappers, ...inline],
    support,
    locate: (id) => (fileOfId(id) ? { run: 0, key: id } : null),
    harness: harness.objects,
  };
}

/**
 * Titles from a " > "-joined name. gagar's reporters and vitest's junit reporter join the describe path
 * with " > "; a title containing " > " itself is split too, which still matches an id spelled the same.
 */
function splitTitles(name: string): string[] {
  return name.split(" > ");
}

/**
 * The wrapper of one test file. Before the test file loads where the module system allows it (a
 * CommonJS wrapper; vitest's, which imports the test file dynamically), it hands the test realm and the
 * assertion libraries `modules` to the guard and has it check the harness after every test.
 */
function wrapper(
  file: string,
  importFrom: string | null,
  modules: readonly string[],
): PlanFile & { file: string; checks: CanaryCheck[] } {
  const path = wrapperPath(file, nonce());
  const esm = isEsm(file) || importFrom !== null;
  const [pass, failAssert, failExpect, failThrow] = [nonce(), nonce(), nonce(), nonce()];
  const sum = ints();
  const assertion = ints();
  const expectation = ints();
  const [m1, m2, m3] = [nonce(), nonce(), nonce()];
  const lines: string[] = [];
  if (importFrom) {
    const from = JSON.stringify(importFrom);
    lines.push(
      'import assert from "node:assert";',
      `import { afterEach as gagarAfterEach, expect, test } from ${from};`,
      ...handOffLines("import", [importFrom, ...modules], "gagarAfterEach", false),
      `await import(${JSON.stringify(`./${posix.basename(file)}`)});`,
    );
  } else if (esm) {
    lines.push(
      loadStatement(file, true),
      'import assert from "node:assert";',
      ...handOffLines("import", modules, "afterEach", true),
    );
  } else {
    lines.push(
      ...handOffLines("require", modules, "afterEach", false),
      loadStatement(file, false),
      'const assert = require("node:assert");',
    );
  }
  lines.push(
    "",
    `test(${JSON.stringify(pass)}, () => {`,
    `  expect(${sum.a} + ${sum.b}).toBe(${sum.a + sum.b});`,
    "});",
    `test(${JSON.stringify(failAssert)}, () => {`,
    `  assert.strictEqual(${assertion.a}, ${assertion.b}, ${JSON.stringify(m1)});`,
    "});",
    // A patched `expect` that stops throwing turns this green: that is the forgery it catches.
    `test(${JSON.stringify(failExpect)}, () => {`,
    "  try {",
    `    expect(${expectation.a}).toBe(${expectation.b});`,
    "  } catch (error) {",
    `    throw new Error(${JSON.stringify(m2)});`,
    "  }",
    "});",
    `test(${JSON.stringify(failThrow)}, () => {`,
    `  throw new Error(${JSON.stringify(m3)});`,
    "});",
    "",
  );
  return {
    path,
    file,
    content: lines.join("\n"),
    checks: [
      { id: jsId(file, [pass]), key: jsId(file, [pass]), expect: "pass" },
      { id: jsId(file, [failAssert]), key: jsId(file, [failAssert]), expect: "fail", message: m1 },
      { id: jsId(file, [failExpect]), key: jsId(file, [failExpect]), expect: "fail", message: m2 },
      { id: jsId(file, [failThrow]), key: jsId(file, [failThrow]), expect: "fail", message: m3 },
    ],
  };
}

/** A reporter module (and the JUnit writer it requires) from runners/reporters, to bind under /gagar/support. */
export function reporterFiles(name: string): PlanFile[] {
  const read = (file: string) => ({
    path: file,
    content: readFileSync(new URL(`./reporters/${file}`, import.meta.url), "utf8"),
  });
  return [read(name), read("junit-writer.cjs")];
}
