import { describe, expect, it } from "vitest";
import { commentPart, isSyntaxLanguage, languageOf, lineComment } from "./languages.ts";

describe("languageOf", () => {
  it("decides by extension, case-insensitively, ignoring dots in folder names", () => {
    expect(languageOf("yt_dlp/YoutubeDL.py")).toBe("python");
    expect(languageOf("src/cli.mjs")).toBe("javascript");
    expect(languageOf("src/App.TSX")).toBe("tsx");
    expect(languageOf("gson/src/main/java/com/google/gson/Gson.java")).toBe("java");
    expect(languageOf("docs.v2/README")).toBeNull();
    expect(languageOf("notes.md")).toBeNull();
  });

  it("marks only Python, JavaScript and TypeScript as parsed with tree-sitter", () => {
    expect(isSyntaxLanguage("python")).toBe(true);
    expect(isSyntaxLanguage("tsx")).toBe(true);
    expect(isSyntaxLanguage("java")).toBe(false);
    expect(isSyntaxLanguage(null)).toBe(false);
  });
});

describe("lineComment", () => {
  it("strips hash markers in hash-comment languages but not shebangs", () => {
    expect(lineComment("    # print(x)", "python")).toBe("print(x)");
    expect(lineComment("#!/usr/bin/env python", "python")).toBeNull();
    expect(lineComment("x = 1", "python")).toBeNull();
  });

  it("reads //, /* and Javadoc continuation lines in C-like languages", () => {
    expect(lineComment("  // return s;", "java")).toBe("return s;");
    expect(lineComment("  /* old */", "java")).toBe("old");
    expect(lineComment("   * @param s the text", "java")).toBe("@param s the text");
    expect(lineComment("  int x = a * b;", "java")).toBeNull();
  });

  it("finds nothing in files of unknown language", () => {
    expect(lineComment("# heading", null)).toBeNull();
  });
});

describe("commentPart", () => {
  it("finds trailing comments outside strings", () => {
    expect(commentPart('x = f("#1")  # TODO: drop', "python")).toBe("TODO: drop");
    expect(commentPart('const url = "http://x"; // FIXME', "javascript")).toBe("FIXME");
    expect(commentPart('const url = "http://x";', "javascript")).toBeNull();
  });
});
