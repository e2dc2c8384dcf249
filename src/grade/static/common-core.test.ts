import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FileSpec, type HunkSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { type CandidateView, viewCandidate } from "./candidate-view.ts";
import { excessEvidence } from "./common-core.ts";
import { resolveStaticOptions } from "./defaults.ts";
import type { Evidence } from "./evidence.ts";

const options = resolveStaticOptions();
const view = (id: string, ...files: FileSpec[]) => viewCandidate(id, patch(...files));
const excess = (subject: CandidateView, ...peers: CandidateView[]) =>
  excessEvidence(subject, peers, new Set(), options);
const lines = (evidence: Evidence[]) => evidence.reduce((n, e) => n + (e.lines ?? 0), 0);

const fixHunk: HunkSpec = {
  at: 40,
  lines: ["     if not text:", "-        return None", "+        return []", "     return parse(text)"],
};
const farHunk: HunkSpec = {
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
const parse = (...hunks: HunkSpec[]): FileSpec => ({ path: "src/parse.py", hunks });

describe("excessEvidence", () => {
  it("reports nothing when every change is one the whole group shares", () => {
    expect(excess(view("a", parse(fixHunk)), view("b", parse(fixHunk)), view("c", parse(fixHunk)))).toEqual(
      [],
    );
  });

  it("reports lines beyond the common core with their count and new-file lines", () => {
    const evidence = excess(
      view("a", parse(fixHunk, farHunk)),
      view("b", parse(fixHunk)),
      view("c", parse(fixHunk)),
    );
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "outside-consensus", file: "src/parse.py", line: 121, lines: 4 }),
    ]);
    expect(evidence[0]!.message).toMatch(/4 changed lines at line 121 beyond the group's common core/);
  });

  it("charges a change that one peer shares but another does without: the core is an intersection", () => {
    const evidence = excess(
      view("a", parse(fixHunk, farHunk)),
      view("b", parse(fixHunk, farHunk)),
      view("c", parse(fixHunk)),
    );
    expect(lines(evidence)).toBe(4);
  });

  it("charges every line of a source file some peer leaves alone, and every documentation line", () => {
    const helper: FileSpec = {
      path: "src/util.py",
      hunks: [{ at: 3, lines: ["+def clamp(x):", "+    return max(0, x)"] }],
    };
    const docs: FileSpec = {
      path: "docs/parse.md",
      hunks: [{ at: 3, lines: [" ## Parse", "+Empty input gives [].", "+"] }],
    };
    const evidence = excess(
      view("a", parse(fixHunk), helper, docs),
      view("b", parse(fixHunk), helper),
      view("c", parse(fixHunk)),
    );
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "extra-file", file: "src/util.py", lines: 2 }),
      expect.objectContaining({ kind: "docs-edit", file: "docs/parse.md", lines: 1 }),
    ]);
    expect(evidence[0]!.message).toMatch(/1 of 2 other passing candidates leave it alone/);
  });

  it("never charges the smallest fix for what larger patches share beyond it (the issue's regression)", () => {
    // Two larger patches share a rewrite of render(); the small one fixes the bug with one line.
    const small = view("small", parse(fixHunk));
    const largeA = view("largeA", parse(fixHunk, farHunk));
    const largeB = view("largeB", parse(fixHunk, farHunk));
    expect(excess(small, largeA, largeB)).toEqual([]);
    expect(lines(excess(largeA, small, largeB))).toBe(4);
  });

  it("counts the same fix placed elsewhere as shared, also with renamed identifiers or another if-chain joint", () => {
    const placedLow: FileSpec = parse({
      at: 200,
      lines: [
        "     if (Map.class.isAssignableFrom(rawType)) {",
        "-      if (ConcurrentNavigableMap.class.isAssignableFrom(rawType)) {",
        "+      if (EnumMap.class.isAssignableFrom(rawType)) {",
        "+        Type keyType = ((ParameterizedType) type).getActualTypeArguments()[0];",
        "+        return (T) new EnumMap((Class) keyType);",
        "+      } else if (ConcurrentNavigableMap.class.isAssignableFrom(rawType)) {",
      ],
    });
    const placedHigh: FileSpec = parse({
      at: 218,
      lines: [
        "         };",
        "+      } else if (EnumMap.class.isAssignableFrom(rawType)) {",
        "+        Type elementType = ((ParameterizedType) type).getActualTypeArguments()[0];",
        "+        return (T) new EnumMap((Class) elementType);",
        "       } else if (type instanceof ParameterizedType) {",
      ],
    });
    expect(excess(view("low", placedLow), view("high", placedHigh))).toEqual([]);
    expect(excess(view("high", placedHigh), view("low", placedLow))).toEqual([]);
  });

  it("does not count blank lines, lone braces, imports, or lines only re-indented", () => {
    const noise = parse(
      { at: 1, lines: [" import re", "+import json", "+", "+from typing import List"] },
      { at: 90, lines: ["-    x = compute()", "+        x = compute()", "+    }"] },
    );
    expect(excess(view("a", parse(fixHunk), noise), view("b", parse(fixHunk)))).toEqual([]);
  });

  it("leaves out lines another detector already charged, and has nothing to compare with alone", () => {
    const a = view("a", parse(fixHunk, farHunk));
    const charged = new Set(a.files[0]!.changes.filter((c) => c.anchor >= 120));
    expect(excessEvidence(a, [view("b", parse(fixHunk))], charged, options)).toEqual([]);
    expect(excess(a)).toEqual([]);
  });

  it("leaves tests, configs and junk to their own detectors", () => {
    const test: FileSpec = {
      path: "tests/test_parse.py",
      hunks: [{ at: 1, lines: ["+def test_empty():", "+    assert parse('') == []"] }],
    };
    expect(excess(view("a", parse(fixHunk), test), view("b", parse(fixHunk)))).toEqual([]);
  });

  it("charges a candidate whose changed lines are a subset of another's no more than that one (property)", () => {
    const change = fc.record({
      // Spaced so that hunks never overlap.
      at: fc.integer({ min: 1, max: 40 }).map((k) => k * 5),
      del: fc.boolean(),
      text: fc.stringMatching(/^[a-z][a-z0-9_]{2,10}\(\d\)$/),
    });
    const hunksOf = (changes: { at: number; del: boolean; text: string }[]): HunkSpec[] =>
      [...new Map(changes.map((c) => [c.at, c])).values()]
        .sort((a, b) => a.at - b.at)
        .map((c) => ({ at: c.at, lines: [c.del ? `-    ${c.text}` : `+    ${c.text}`, "     pass"] }));
    fc.assert(
      fc.property(
        fc.array(change, { minLength: 1, maxLength: 8 }),
        fc.array(change, { maxLength: 8 }),
        fc.array(fc.array(change, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        (core, extra, others) => {
          const small = view("small", { path: "m.py", hunks: hunksOf(core) });
          // Extra changes at positions the small patch already uses would replace its own lines.
          const used = new Set(core.map((c) => c.at));
          const large = view("large", {
            path: "m.py",
            hunks: hunksOf([...core, ...extra.filter((c) => !used.has(c.at))]),
          });
          const peers = others.map((o, i) => view(`p${i}`, { path: "m.py", hunks: hunksOf(o) }));
          for (const v of [small, large, ...peers]) expect(v.unreadable).toBeUndefined();
          expect(lines(excess(small, large, ...peers))).toBeLessThanOrEqual(
            lines(excess(large, small, ...peers)),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
