import { describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { debugEvidence } from "./debug-leftovers.ts";
import type { Workspace } from "./workspace.ts";

const evidenceOf = (
  spec: FileSpec,
  peers: Set<string> = new Set(),
  workspace: Workspace | null = null,
  projectUses: (text: string) => boolean = () => false,
) =>
  debugEvidence(viewCandidate("c", patch(spec)).files[0]!, (key) => peers.has(key), workspace, projectUses);
const file = (path: string, lines: string[], at = 10): FileSpec => ({ path, hunks: [{ at, lines }] });

describe("debugEvidence", () => {
  it("always reports debugger hooks", () => {
    for (const [path, line] of [
      ["yt_dlp/utils.py", "+    breakpoint()"],
      ["yt_dlp/utils.py", "+    import pdb; pdb.set_trace()"],
      ["src/printer.js", "+  debugger;"],
      ["src/printer.js", "+  console.trace();"],
      ["src/lib.rs", "+    let n = dbg!(n + 1);"],
      ["src/main/java/a/B.java", "+      e.printStackTrace();"],
    ] as const) {
      expect(evidenceOf(file(path, [" x", line])), line).toEqual([
        expect.objectContaining({ kind: "debug-leftover" }),
      ]);
    }
  });

  it("reports library code that configures logging for the whole process, but not a script doing so", () => {
    const lines = [
      " import logging",
      "+logging.basicConfig(level=logging.DEBUG)",
      "+log = logging.getLogger(__name__)",
    ];
    expect(evidenceOf(file("daterange/split.py", lines))).toEqual([
      expect.objectContaining({
        kind: "debug-leftover",
        line: 11,
        message: expect.stringMatching(/configures logging for the whole process/),
      }),
    ]);
    expect(evidenceOf(file("scripts/export.py", lines))).toEqual([]);
  });

  it("reports a new print in library code that never printed", () => {
    const evidence = evidenceOf(
      file("src/utils/format-size.js", [
        "   while (bytes >= 1024) {",
        '+    console.log("bytes", bytes, i);',
        "     bytes /= 1024;",
      ]),
    );
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "debug-leftover", file: "src/utils/format-size.js", line: 11 }),
    ]);
  });

  it("accepts output where the code prints on purpose", () => {
    // The file already printed with the same call (here: the line it replaced).
    expect(
      evidenceOf(
        file("src/cli-util.js", [
          "-          console.log(filename);",
          "+          if (show) console.log(filename);",
        ]),
      ),
    ).toEqual([]);
    // CLI and script paths.
    expect(evidenceOf(file("scripts/release.py", [' print("tagging")', '+print("pushing")']))).toEqual([]);
    // An output function.
    expect(
      evidenceOf(
        file("src/cli-logger.js", [
          "+function log(message) {",
          "+  if (!isSilent()) {",
          "+    console.log(message);",
          "+  }",
          "+}",
        ]),
      ),
    ).toEqual([]);
    // Another candidate adds the same line: the group agrees the output is wanted.
    const peers = new Set(["src/report.py\u0000print(summary)"]);
    expect(evidenceOf(file("src/report.py", [" x = 1", "+    print(summary)"]), peers)).toEqual([]);
  });

  it("looks the call up in the workspace copy of the file", () => {
    const workspace = {
      readFile: (p: string) => (p === "src/tool.py" ? 'print("usage")\n' : null),
    } as Workspace;
    expect(evidenceOf(file("src/tool.py", [" x = 1", "+print(total)"]), new Set(), workspace)).toEqual([]);
    expect(evidenceOf(file("src/other.py", [" x = 1", "+print(total)"]), new Set(), workspace)).toHaveLength(
      1,
    );
  });

  it("reports prints that read like debugging even where printing is normal", () => {
    const evidence = evidenceOf(
      file("src/cli.py", [' print("usage")', '+print(f"{args=}")', '+print("DEBUG here")']),
    );
    expect(evidence).toHaveLength(2);
  });

  it("reports JavaScript console calls that print internal values like a debugging session", () => {
    for (const line of [
      "+\t\t\tconsole.error('[minimist] long arg', key, '=>', value);",
      "+    console.warn(err);",
      "+    console.info(JSON.stringify(options));",
      "+    console.debug('state', { key, value });",
      "+    console.dir(tree, { depth: null });",
      "+  if (!ok) console.error(`parse`, input);",
    ]) {
      expect(evidenceOf(file("lib/parse.ts", [" x", line])), line).toEqual([
        expect.objectContaining({
          kind: "debug-leftover",
          line: 11,
          message: expect.stringMatching(/internal values/),
        }),
      ]);
    }
  });

  it("accepts a library's deliberate messages and the project's own diagnostic calls", () => {
    // Messages for the user: a string, a composed sentence, a format string and its values.
    for (const line of [
      "+    console.warn('shell-quote: quote() converts non-string arguments with String()');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the patch's own JavaScript template literal
      '+    console.warn(`option "${name}" is deprecated, use "${replacement}" instead`);',
      "+    console.error('Cannot find module ' + name + '; is it installed?');",
      "+    console.warn('%s is deprecated and will be removed in 3.0', name);",
      "+    console.warn('The debug option is deprecated; use verbose instead');",
      "+    console.info('cache directory created');",
      "+    console.debug('cache miss');",
    ]) {
      expect(evidenceOf(file("lib/quote.js", [" x", line])), line).toEqual([]);
    }
    const dump = file("lib/parse.js", [" x", "+    console.error('long arg', key, value);"]);
    // The same call in the file before the patch, or anywhere in the project's library code.
    const workspace = {
      readFile: (p: string) => (p === "lib/parse.js" ? "function warn(m) { console.error(m); }\n" : null),
    } as Workspace;
    expect(evidenceOf(dump, new Set(), workspace)).toEqual([]);
    expect(evidenceOf(dump, new Set(), null, (text) => text === "console.error(")).toEqual([]);
    expect(evidenceOf(dump, new Set(), null, (text) => text === "console.warn(")).toHaveLength(1);
    // Scripts print by nature.
    expect(evidenceOf({ ...dump, path: "bin/parse.js" })).toEqual([]);
    // A terse debugging marker is a leftover even where the project reports errors this way.
    expect(
      evidenceOf(file("lib/parse.js", [" x", "+    console.error('HERE');"]), new Set(), null, () => true),
    ).toEqual([expect.objectContaining({ message: expect.stringMatching(/reads like a debug print/) })]);
  });

  it("does not judge tests, docs or unknown languages", () => {
    expect(evidenceOf(file("tests/test_x.py", [" x = 1", "+    print(result)"]))).toEqual([]);
    expect(evidenceOf(file("docs/usage.md", [" x", "+console.log(x)"]))).toEqual([]);
    expect(evidenceOf(file("lib/x.ex", [" x", "+IO.inspect(x)"]))).toEqual([]);
  });
});
