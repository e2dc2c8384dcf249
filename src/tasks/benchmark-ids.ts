import type { MissingPassToPass } from "../contracts/task-spec.ts";
import { RUNNERS } from "../verify/runners/registry.ts";

/**
 * Test ids of the public benchmarks, mapped into the id space of gagar's runner adapters
 * (src/verify/runners):
 *
 * - **SWE-bench / SWE-Gym / R2E-Gym** (`file::Class::test[param]`): pytest node ids, kept as they
 *   are for pytest; for JavaScript runners the parts after the file become a describe path
 *   (`file::A > B`).
 * - **SWE-PolyBench** (`file:Class:test`, a single colon): the same, once the file part is found (the
 *   text up to the first `:` after a source-file extension). Only the file and class parts are split
 *   off: a test's own name may hold colons (`test_m[a:b]`, `handles key: value pairs`). For pytest the
 *   classes are identifiers, so every colon before the parameters (`[`) separates one; for JavaScript
 *   a describe title can hold anything, so the one colon after the suite is the only separator.
 * - **Multi-SWE-bench** names tests the way each language's harness prints them (Java classes, Go test
 *   names, JavaScript file names or titles): ids without a file stay as they are; they match a mocha
 *   title path or a junit `classname::name`, and an id that matches nothing is reported by the task's
 *   check (`gagar tasks check --run`) instead of silently failing every candidate.
 */
const FILE_COLON = /^(.+?\.(?:py|[cm]?[jt]sx?))(?::)(.+)$/;

/** The benchmarks whose records `gagar tasks import` reads, and what a task's defaults follow. */
export const BENCHMARKS = ["swe-bench", "swe-polybench", "multi-swe-bench"] as const;
export type Benchmark = (typeof BENCHMARKS)[number];

/**
 * Which benchmark a record comes from, as far as its form tells: Multi-SWE-bench by its field names
 * (`fix_patch`), SWE-PolyBench by an id in its `file:name` form (one colon after the file), SWE-bench
 * otherwise. Ids without a file (mocha full titles) say nothing, so `gagar tasks import --benchmark`
 * can name the benchmark instead.
 */
export function detectBenchmark(
  record: Readonly<Record<string, unknown>>,
  ids: readonly string[],
): Benchmark {
  if ("fix_patch" in record) return "multi-swe-bench";
  if (ids.some((id) => !id.includes("::") && FILE_COLON.test(id))) return "swe-polybench";
  return "swe-bench";
}

/**
 * What a passToPass test that no report mentions counts as, following the benchmark's harness:
 * SWE-PolyBench's counts only a reported failure; SWE-bench's needs the test to have passed (a test
 * that did not run did not pass), and gagar keeps that strict rule for Multi-SWE-bench records too.
 */
export function missingPassToPassOf(benchmark: Benchmark): MissingPassToPass {
  return benchmark === "swe-polybench" ? "ignore" : "fail";
}

export function toTaskId(id: string, runner: string): string {
  const style = RUNNERS.get(runner)?.idStyle;
  const python = style === "nodes";
  const js = style === "titles";
  let file: string | undefined;
  let parts: string[] = [];
  if (id.includes("::")) {
    [file, ...parts] = id.split("::");
  } else {
    const m = FILE_COLON.exec(id);
    if (m) {
      file = m[1];
      parts = python ? pythonParts(m[2]!) : suiteAndTitle(m[2]!);
    }
  }
  if (!file || parts.length === 0 || !(python || js)) return id;
  return python ? [file, ...parts].join("::") : `${file}::${parts.join(" > ")}`;
}

/** `TestK:test_m[a:b]` → `TestK`, `test_m[a:b]`: colons inside the parameters stay. */
function pythonParts(rest: string): string[] {
  const bracket = rest.indexOf("[");
  const names = bracket < 0 ? rest : rest.slice(0, bracket);
  const parts = names.split(":");
  parts[parts.length - 1] += bracket < 0 ? "" : rest.slice(bracket);
  return parts;
}

/** `Suite:handles key: value pairs` → `Suite`, `handles key: value pairs`. */
function suiteAndTitle(rest: string): string[] {
  const colon = rest.indexOf(":");
  return colon < 0 ? [rest] : [rest.slice(0, colon), rest.slice(colon + 1)];
}
