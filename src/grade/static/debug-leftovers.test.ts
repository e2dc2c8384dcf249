import { describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { debugEvidence } from "./debug-leftovers.ts";
import type { Workspace } from "./workspace.ts";

const evidenceOf = (spec: FileSpec, peers: Set<string> = new Set(), workspace: Workspace | null = null) =>
  debugEvidence(viewCandidate("c", patch(spec)).files[0]!, (key) => peers.has(key), workspace);
const file = (path: string, lines: string[], at = 10): FileSpec => ({ path, hunks: [{ at, lines }] });

describe("debugEvidence", () => {
  it("always reports debugger hooks", () => {
    for (const [path, line] of [
      ["yt_dlp/utils.py", "+    breakpoint()"],
      ["yt_dlp/utils.py", "+    import pdb; pdb.set_trace()"],
      ["src/printer.js", "+  debugger;"],
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

  it("does not judge tests, docs or unknown languages", () => {
    expect(evidenceOf(file("tests/test_x.py", [" x = 1", "+    print(result)"]))).toEqual([]);
    expect(evidenceOf(file("docs/usage.md", [" x", "+console.log(x)"]))).toEqual([]);
    expect(evidenceOf(file("lib/x.ex", [" x", "+IO.inspect(x)"]))).toEqual([]);
  });
});
