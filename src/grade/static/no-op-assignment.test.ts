import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { noOpEvidence } from "./no-op-assignment.ts";

const judge = (path: string, line: string) =>
  noOpEvidence(
    viewCandidate("c", patch({ path, hunks: [{ at: 2194, lines: [line, "     prefer_best = download"] }] }))
      .files[0]!,
  );

describe("noOpEvidence", () => {
  it("reports a variable assigned to itself", () => {
    expect(judge("yt_dlp/YoutubeDL.py", "+        download = download")).toEqual([
      expect.objectContaining({ kind: "no-op-assignment", file: "yt_dlp/YoutubeDL.py", line: 2194 }),
    ]);
    expect(judge("src/a.js", "+    this.options = this.options;")).toHaveLength(1);
  });

  it("accepts assignments that do something", () => {
    expect(judge("src/A.java", "+    this.download = download;")).toEqual([]);
    expect(judge("a.py", "+        download = download and not simulate")).toEqual([]);
    expect(judge("a.py", "+        download == download")).toEqual([]);
  });
});
