import { describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { scopeEvidence } from "./consensus.ts";
import { resolveStaticOptions } from "./defaults.ts";

const options = resolveStaticOptions();
const view = (id: string, ...files: FileSpec[]) => viewCandidate(id, patch(...files));
const scope = (subject: ReturnType<typeof view>, ...peers: ReturnType<typeof view>[]) =>
  scopeEvidence(subject, peers, new Set(), options);

const sharedHunk = {
  at: 40,
  lines: ["     if not text:", "-        return None", "+        return []", "     return parse(text)"],
};
const elsewhereHunk = {
  at: 120,
  lines: [
    " def render(node):",
    "-    out = []",
    "-    for child in node.children:",
    "-        out.append(render(child))",
    "+    out = [render(child) for child in node.children]",
    "     return out",
  ],
};
const shared = (...more: (typeof sharedHunk)[]): FileSpec => ({
  path: "src/parse.py",
  hunks: [sharedHunk, ...more],
});

describe("scopeEvidence", () => {
  it("reports nothing when every change is one the group shares", () => {
    expect(scope(view("a", shared()), view("b", shared()), view("c", shared()))).toEqual([]);
  });

  it("reports a block no other candidate touches, with its size and new-file lines", () => {
    const evidence = scope(view("a", shared(elsewhereHunk)), view("b", shared()), view("c", shared()));
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "outside-consensus", file: "src/parse.py", line: 121, lines: 4 }),
    ]);
    expect(evidence[0]!.message).toMatch(
      /4 changed lines at line 121 that no other passing candidate changes/,
    );
  });

  it("reports a file only this candidate changes as an extra file", () => {
    const docs: FileSpec = {
      path: "docs/parse.md",
      hunks: [{ at: 3, lines: [" ## Parse", "+Empty input now gives []."] }],
    };
    const evidence = scope(view("a", shared(), docs), view("b", shared()));
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "extra-file", file: "docs/parse.md", lines: 1 }),
    ]);
  });

  it("counts the same fix placed a few lines away as shared, by content", () => {
    const moved: FileSpec = {
      path: "src/parse.py",
      hunks: [
        {
          at: 60,
          lines: [
            "     if not text:",
            "-        return None",
            "+        raise_if_strict(text, strict_mode=True)",
          ],
        },
      ],
    };
    const peer: FileSpec = {
      path: "src/parse.py",
      hunks: [{ at: 10, lines: ["     if not text:", "+        raise_if_strict(text, strict_mode=True)"] }],
    };
    // The added line matches by content; the deleted `return None` is two lines of glue next to it.
    expect(scope(view("a", moved), view("b", peer))).toEqual([]);
  });

  it("does not count blank lines, lone braces or imports", () => {
    const imports: FileSpec = {
      path: "src/parse.py",
      hunks: [{ at: 1, lines: [" import re", "+import json", "+", "+from typing import List"] }],
    };
    expect(scope(view("a", shared(), imports), view("b", shared()))).toEqual([]);
  });

  it("excludes lines another detector already charged (format churn)", () => {
    const a = view("a", shared(elsewhereHunk));
    const charged = new Set(a.files[0]!.changes.filter((c) => c.anchor >= 120));
    expect(scopeEvidence(a, [view("b", shared())], charged, options)).toEqual([]);
  });

  it("has nothing to compare with a single candidate", () => {
    expect(scope(view("a", shared(elsewhereHunk)))).toEqual([]);
  });

  it("leaves tests, configs and junk to their own detectors", () => {
    const test: FileSpec = {
      path: "tests/test_parse.py",
      hunks: [{ at: 1, lines: ["+def test_empty():", "+    assert parse('') == []"] }],
    };
    expect(scope(view("a", shared(), test), view("b", shared()))).toEqual([]);
  });
});
