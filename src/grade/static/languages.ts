/**
 * Which language a changed file is in, decided per file from its extension: a task's `language` is
 * free text and many patches touch files of several languages (a Java fix plus a YAML config).
 */

/** Languages parsed with tree-sitter; every other language gets diff-level analysis only. */
export type SyntaxLanguage = "python" | "javascript" | "typescript" | "tsx";

export type LanguageId =
  | SyntaxLanguage
  | "java"
  | "kotlin"
  | "go"
  | "rust"
  | "ruby"
  | "php"
  | "c"
  | "csharp"
  | "shell";

const BY_EXTENSION: Record<string, LanguageId> = {
  py: "python",
  pyi: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  scala: "java",
  go: "go",
  rs: "rust",
  rb: "ruby",
  php: "php",
  c: "c",
  h: "c",
  cc: "c",
  cpp: "c",
  hpp: "c",
  cs: "csharp",
  sh: "shell",
  bash: "shell",
};

/** The language of a path, or null for data, docs and unknown extensions. */
export function languageOf(path: string): LanguageId | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return BY_EXTENSION[path.slice(dot + 1).toLowerCase()] ?? null;
}

export function isSyntaxLanguage(language: LanguageId | null): language is SyntaxLanguage {
  return (
    language === "python" || language === "javascript" || language === "typescript" || language === "tsx"
  );
}

/** JavaScript, TypeScript and TSX: one runtime, one family of test libraries and console calls. */
export function isJavaScriptFamily(language: LanguageId | null): boolean {
  return language === "javascript" || language === "typescript" || language === "tsx";
}

const HASH_COMMENTS = new Set<LanguageId>(["python", "ruby", "shell"]);

/**
 * The text of a whole-line comment (marker stripped), or null when the line is not one.
 * Block-comment continuation lines (` * text`) count, so Javadoc/JSDoc bodies are recognised.
 */
export function lineComment(text: string, language: LanguageId | null): string | null {
  const trimmed = text.trim();
  if (language === null) return null;
  if (HASH_COMMENTS.has(language)) {
    return trimmed.startsWith("#") && !trimmed.startsWith("#!") ? trimmed.replace(/^#+\s?/, "") : null;
  }
  if (trimmed.startsWith("//")) return trimmed.replace(/^\/\/+\s?/, "");
  if (trimmed.startsWith("/*")) return trimmed.replace(/^\/\*+\s?/, "").replace(/\s*\*\/\s*$/, "");
  if (trimmed.startsWith("*") && !trimmed.startsWith("*/") && !/^\*\s*[=(]/.test(trimmed)) {
    return trimmed.replace(/^\*\s?/, "").replace(/\s*\*\/\s*$/, "");
  }
  return null;
}

/** The comment part of a line (whole-line or trailing), found without a parser; null when there is none. */
export function commentPart(text: string, language: LanguageId | null): string | null {
  const whole = lineComment(text, language);
  if (whole !== null) return whole;
  if (language === null) return null;
  const marker = HASH_COMMENTS.has(language) ? /\s#\s?(.*)$/ : /\s\/\/\s?(.*)$/;
  const match = marker.exec(stripStrings(text));
  return match ? match[1]! : null;
}

/** Blanks out string literal bodies so markers inside strings are not mistaken for comments. */
function stripStrings(text: string): string {
  return text.replace(
    /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g,
    (s) => s[0] + " ".repeat(s.length - 2) + s[0],
  );
}
