import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/**
 * Sizes of the source (issue 20: a newcomer reads a function whole, a file in one sitting): functions,
 * methods, arrows and constructors over `FUNCTION_LIMIT` lines, files over `FILE_LIMIT` lines. Tests,
 * contract suites and test support under src/ are not counted. Used by test/code-sizes.test.ts and
 * scripts/code-sizes.ts.
 */
export const FUNCTION_LIMIT = 100;
export const FILE_LIMIT = 400;

export interface LongFunction {
  file: string;
  line: number;
  /** The function's name, the variable or property it is assigned to, or `<anonymous>`. */
  name: string;
  lines: number;
}

export interface LongFile {
  file: string;
  lines: number;
}

/** Source files counted, relative to `root` (forward slashes), sorted. */
export function countedFiles(root: string, dir = "src"): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return countedFiles(root, path);
      return e.name.endsWith(".ts") && !/\.test\.ts$|test-suite|test-support|\/testing\//.test(path)
        ? [path]
        : [];
    })
    .sort();
}

/** Lines of a file's text, as an editor numbers them (a final newline starts no line). */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function isFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isArrowFunction(n) ||
    ts.isFunctionExpression(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessor(n) ||
    ts.isSetAccessor(n)
  );
}

function nameOf(n: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(n)) return "constructor";
  if (n.name) return n.name.getText();
  const parent = n.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "<anonymous>";
}

/** Functions of one file's text over the limit, outermost first. */
export function longFunctions(file: string, text: string, limit = FUNCTION_LIMIT): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (n: ts.Node) => {
    if (isFunction(n)) {
      const first = source.getLineAndCharacterOfPosition(n.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (last - first + 1 > limit)
        found.push({ file, line: first + 1, name: nameOf(n), lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

/** Every function and file of src/ under `root` over the limits, largest first. */
export function codeSizes(root: string): { functions: LongFunction[]; files: LongFile[] } {
  const functions: LongFunction[] = [];
  const files: LongFile[] = [];
  for (const file of countedFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    const lines = lineCount(text);
    if (lines > FILE_LIMIT) files.push({ file, lines });
    functions.push(...longFunctions(file, text));
  }
  functions.sort((a, b) => b.lines - a.lines);
  files.sort((a, b) => b.lines - a.lines);
  return { functions, files };
}

/** `file:line  name  lines` / `file  lines`, one offender a line. */
export function describeSizes(sizes: { functions: LongFunction[]; files: LongFile[] }): string {
  return [
    `functions over ${FUNCTION_LIMIT} lines: ${sizes.functions.length}`,
    ...sizes.functions.map((f) => `   ${f.file}:${f.line}  ${f.name}  ${f.lines}`),
    `files over ${FILE_LIMIT} lines: ${sizes.files.length}`,
    ...sizes.files.map((f) => `   ${f.file}  ${f.lines}`),
  ].join("\n");
}
