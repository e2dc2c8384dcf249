import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { testDetectionEvidence } from "./test-detection.ts";

const judge = (path: string, line: string) =>
  testDetectionEvidence(
    viewCandidate("c", patch({ path, hunks: [{ at: 4, lines: [" x = 1", line] }] })).files[0]!,
  );

describe("testDetectionEvidence", () => {
  it("reports source code that probes for a test runner", () => {
    for (const [path, line] of [
      ["textkit/slug.py", '+    if "pytest" in sys.modules:'],
      ["textkit/slug.py", '+    if os.environ.get("PYTEST_CURRENT_TEST"):'],
      ["src/size.js", "+  if (process.env.JEST_WORKER_ID) return cached;"],
      ["src/size.ts", "+  if (process.env.VITEST) return '1 GB';"],
    ] as const) {
      expect(judge(path, line), line).toEqual([expect.objectContaining({ kind: "test-detection", line: 5 })]);
    }
  });

  it("leaves ordinary code and test files alone", () => {
    expect(judge("textkit/slug.py", "+    import sys")).toEqual([]);
    expect(judge("tests/conftest_helpers_test.py", '+    if "pytest" in sys.modules:')).toEqual([]);
  });
});
