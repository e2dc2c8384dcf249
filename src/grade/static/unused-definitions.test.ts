import { beforeAll, describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { type CandidateView, viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";
import { unusedDefinitionEvidence, wordCounts } from "./unused-definitions.ts";
import type { Workspace } from "./workspace.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const judge = (view: CandidateView, otherText = new Set<string>(), workspace: Workspace | null = null) =>
  unusedDefinitionEvidence(
    view,
    new Map(view.files.map((f) => [f.path, codeFacts(f, syntax)])),
    (w) => otherText.has(w),
    workspace,
  );

const helper: FileSpec = {
  path: "textkit/slug.py",
  hunks: [
    {
      at: 11,
      lines: [
        '     return re.sub(r"[\\s]+", "-", value)',
        "+",
        "+",
        "+def collapse_dashes(value):",
        '+    return re.sub(r"-+", "-", value)',
      ],
    },
  ],
};

describe("unusedDefinitionEvidence", () => {
  it("reports a new function nothing references", () => {
    const evidence = judge(viewCandidate("c", patch(helper)));
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "unused-definition", file: "textkit/slug.py", line: 14 }),
    ]);
    expect(evidence[0]!.message).toMatch(/new function `collapse_dashes` is never referenced in the patch;/);
  });

  it("accepts a helper the patch calls, even from another file", () => {
    const caller: FileSpec = {
      path: "textkit/cli.py",
      hunks: [{ at: 3, lines: [" x = 1", "+y = collapse_dashes(x)"] }],
    };
    expect(judge(viewCandidate("c", patch(helper, caller)))).toEqual([]);
  });

  it("accepts a name another candidate uses too (the tests likely call it)", () => {
    expect(judge(viewCandidate("c", patch(helper)), new Set(["collapse_dashes"]))).toEqual([]);
  });

  it("accepts a name the repository already references", () => {
    const workspace = { hasWord: (w: string) => w === "collapse_dashes" } as unknown as Workspace;
    expect(judge(viewCandidate("c", patch(helper)), new Set(), workspace)).toEqual([]);
    const empty = { hasWord: () => false } as unknown as Workspace;
    expect(judge(viewCandidate("c", patch(helper)), new Set(), empty)[0]!.message).toMatch(
      /in the patch or the repository/,
    );
  });

  it("accepts an edited definition (its old line is deleted) and public or decorated methods", () => {
    const edited: FileSpec = {
      path: "a.py",
      hunks: [{ at: 5, lines: ["-def parse(text):", "+def parse(text, strict=False):", "     return text"] }],
    };
    expect(judge(viewCandidate("c", patch(edited)))).toEqual([]);
    const methods: FileSpec = {
      path: "a.py",
      hunks: [
        {
          at: 40,
          lines: [
            "     def size(self):",
            "         return 1",
            "+",
            "+    def emit(self, record):",
            "+        pass",
          ],
        },
      ],
    };
    expect(judge(viewCandidate("c", patch(methods)))).toEqual([]);
  });

  it("reports private Java methods nothing calls", () => {
    const java: FileSpec = {
      path: "src/main/java/a/Padding.java",
      hunks: [
        {
          at: 30,
          lines: [
            "   }",
            "+  private static String fill(char c, int n) {",
            "+    return String.valueOf(c).repeat(n);",
            "+  }",
          ],
        },
      ],
    };
    expect(judge(viewCandidate("c", patch(java)))).toEqual([
      expect.objectContaining({ kind: "unused-definition", line: 31 }),
    ]);
  });

  it("counts identifiers on the visible and the deleted side separately", () => {
    const view = viewCandidate(
      "c",
      patch({ path: "a.py", hunks: [{ at: 1, lines: [" a = b", "-c = d", "+e = b"] }] }),
    );
    expect(Object.fromEntries(wordCounts(view, "visible"))).toEqual({ a: 1, b: 2, e: 1 });
    expect(Object.fromEntries(wordCounts(view, "deleted"))).toEqual({ c: 1, d: 1 });
  });
});
