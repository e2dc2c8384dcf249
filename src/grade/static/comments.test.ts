import { beforeAll, describe, expect, it } from "vitest";
import { type HunkSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { codeFacts } from "./code-facts.ts";
import { commentEvidence, isCommentedCode } from "./comments.ts";
import { loadSyntax, type Syntax } from "./syntax.ts";

let syntax: Syntax;
beforeAll(async () => {
  syntax = await loadSyntax();
});

const evidenceOf = (path: string, ...hunks: HunkSpec[]) => {
  const file = viewCandidate("c", patch({ path, hunks })).files[0]!;
  return commentEvidence(file, codeFacts(file, syntax), syntax);
};

describe("isCommentedCode", () => {
  it("tells Python code from prose by parsing it", () => {
    expect(isCommentedCode('return re.sub(r"[\\s]+", "-", value)', "python", syntax)).toBe(true);
    expect(isCommentedCode("value = value.strip()", "python", syntax)).toBe(true);
    expect(isCommentedCode("import pdb", "python", syntax)).toBe(true);
    expect(isCommentedCode("return the cached value", "python", syntax)).toBe(false);
    expect(isCommentedCode("Note: empty input gives []", "python", syntax)).toBe(false);
    expect(isCommentedCode("see JDK-6609675", "python", syntax)).toBe(false);
    expect(isCommentedCode("noqa: E501", "python", syntax)).toBe(false);
  });

  it("tells JavaScript code from prose, URLs and tool directives", () => {
    expect(isCommentedCode("console.log(filename);", "javascript", syntax)).toBe(true);
    expect(isCommentedCode("const last = UNITS.length - 1;", "typescript", syntax)).toBe(true);
    expect(
      isCommentedCode(
        "Don't use `console.log` here since we need to replace this line.",
        "javascript",
        syntax,
      ),
    ).toBe(false);
    expect(isCommentedCode("https://github.com/prettier/prettier/issues/3515", "javascript", syntax)).toBe(
      false,
    );
    expect(isCommentedCode("eslint-disable-next-line no-console", "javascript", syntax)).toBe(false);
    expect(isCommentedCode("OK: try the next format", "javascript", syntax)).toBe(false);
  });

  it("uses statement shapes for other languages", () => {
    expect(isCommentedCode("return s.substring(0, width);", "java", syntax)).toBe(true);
    expect(isCommentedCode("appendable.append(currentWrite, offset, offset + length);", "java", syntax)).toBe(
      true,
    );
    expect(
      isCommentedCode("Must return string representation to satisfy toString() contract", "java", syntax),
    ).toBe(false);
    expect(isCommentedCode("@param quote either ' or \".", "java", syntax)).toBe(false);
  });
});

describe("commentEvidence", () => {
  it("reports a commented-out stretch once, at its first line", () => {
    const evidence = evidenceOf("src/slug.py", {
      at: 10,
      lines: [
        "     value = value.lower()",
        '-    return re.sub(r"[\\s]+", "-", value)',
        '+    # value = re.sub(r"[\\s]+", "-", value)',
        '+    # return value.strip("-")',
        '+    return re.sub(r"[\\s-]+", "-", value).strip("-")',
      ],
    });
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "commented-out-code", file: "src/slug.py", line: 11 }),
    ]);
    expect(evidence[0]!.message).toMatch(/\(2 comment lines\)/);
  });

  it("accepts explanatory comments, including ones that mention code", () => {
    const evidence = evidenceOf("src/DateAdapter.java", {
      at: 187,
      lines: [
        "       for (DateFormat dateFormat : dateFormats) {",
        "+        // Need to save and restore the time zone because parsing can modify it, see",
        "+        // https://github.com/google/gson/issues/2472",
        "+        TimeZone originalTimeZone = dateFormat.getTimeZone();",
      ],
    });
    expect(evidence).toEqual([]);
  });

  it("accepts code examples in doc comments", () => {
    const java = evidenceOf("src/main/java/a/Gson.java", {
      at: 100,
      lines: [
        "  /**",
        "+   * <pre>",
        "+   *   Gson gson = new GsonBuilder().create();",
        "+   * </pre>",
        "   */",
      ],
    });
    const ts = evidenceOf("src/size.ts", {
      at: 1,
      lines: ['+/** @example formatSize(2048); // "2.0 KB" */', "+export const x = 1;"],
    });
    expect([...java, ...ts]).toEqual([]);
  });

  it("reports added TODO/FIXME/XXX markers but not ones that were already there", () => {
    const evidence = evidenceOf("src/units.ts", {
      at: 3,
      lines: [
        "-  // TODO: support TB",
        "+    // TODO: support TB",
        "+  const last = UNITS.length - 1; // FIXME off by one?",
        "+  // todo lists are handled elsewhere",
      ],
    });
    expect(evidence.map((e) => [e.kind, e.line])).toEqual([["todo-marker", 4]]);
    expect(evidence[0]!.message).toMatch(/added FIXME comment "FIXME off by one\?"/);
  });
});
