import { describe, expect, it } from "vitest";
import { viewCandidate } from "./candidate-view.ts";
import { junkEvidence } from "./junk-files.ts";

const judge = (text: string) => viewCandidate("c", text).files.flatMap(junkEvidence);

describe("junkEvidence", () => {
  it("reports leftovers with what they are", () => {
    const evidence = judge(
      [
        "diff --git a/src/cli-util.js.orig b/src/cli-util.js.orig",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/src/cli-util.js.orig",
        "@@ -0,0 +1 @@",
        "+old",
        "diff --git a/reproduce_issue.py b/reproduce_issue.py",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/reproduce_issue.py",
        "@@ -0,0 +1 @@",
        "+print(slugify('a -- b'))",
        "",
      ].join("\n"),
    );
    expect(evidence.map((e) => [e.kind, e.file])).toEqual([
      ["junk-file", "src/cli-util.js.orig"],
      ["junk-file", "reproduce_issue.py"],
    ]);
    expect(evidence[0]!.message).toMatch(/a leftover of a failed merge or patch/);
    expect(evidence[1]!.message).toMatch(/scratch script/);
  });

  it("reports binary files that are not junk as binary", () => {
    const evidence = judge(
      "diff --git a/docs/logo.png b/docs/logo.png\nnew file mode 100644\nBinary files /dev/null and b/docs/logo.png differ\n",
    );
    expect(evidence.map((e) => e.kind)).toEqual(["binary-file"]);
  });

  it("does not blame a candidate for deleting junk", () => {
    expect(
      judge(
        "diff --git a/out.log b/out.log\ndeleted file mode 100644\n--- a/out.log\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      ),
    ).toEqual([]);
  });
});
