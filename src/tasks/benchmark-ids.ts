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
