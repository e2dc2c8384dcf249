/**
 * Test ids of the public benchmarks, mapped into the id space of gagar's runner adapters
 * (src/verify/runners):
 *
 * - **SWE-bench / SWE-Gym / R2E-Gym** (`file::Class::test[param]`): pytest node ids, kept as they
 *   are for pytest; for JavaScript runners the parts after the file become a describe path
 *   (`file::A > B`).
 * - **SWE-PolyBench** (`file:Class:test`, a single colon): the same, once the file part is found (the
 *   text up to the first `:` after a source-file extension).
 * - **Multi-SWE-bench** names tests the way each language's harness prints them (Java classes, Go test
 *   names, JavaScript file names or titles): ids without a file stay as they are; they match a mocha
 *   title path or a junit `classname::name`, and an id that matches nothing is reported by the task's
 *   check (`gagar tasks check --run`) instead of silently failing every candidate.
 */
const FILE_COLON = /^(.+?\.(?:py|[cm]?[jt]sx?))(?::)(.+)$/;

export function toTaskId(id: string, runner: string): string {
  const python = runner === "pytest";
  const js = runner === "node:test" || runner === "jest" || runner === "vitest" || runner === "mocha";
  let file: string | undefined;
  let parts: string[] = [];
  if (id.includes("::")) {
    [file, ...parts] = id.split("::");
  } else {
    const m = FILE_COLON.exec(id);
    if (m) {
      file = m[1];
      parts = m[2]!.split(":");
    }
  }
  if (!file || parts.length === 0 || !(python || js)) return id;
  return python ? [file, ...parts].join("::") : `${file}::${parts.join(" > ")}`;
}
