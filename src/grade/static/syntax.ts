import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, type Node, Parser, type Tree } from "web-tree-sitter";
import type { SyntaxLanguage } from "./languages.ts";

/**
 * Tree-sitter parsers for the languages where syntax decides a finding (is this comment code? is this
 * definition used? does this branch return a literal?). Grammars come from @vscode/tree-sitter-wasm,
 * resolved through node_modules, so nothing is downloaded. Loaded once per process, on first use.
 */
export interface Syntax {
  /**
   * Parses `text` and hands the root node to `use`; the tree is freed afterwards (wasm memory is not
   * garbage-collected), so nodes must not escape `use`.
   */
  withTree<T>(language: SyntaxLanguage, text: string, use: (root: Node) => T): T;
}

let loading: Promise<Syntax> | undefined;

export function loadSyntax(): Promise<Syntax> {
  loading ??= load();
  return loading;
}

async function load(): Promise<Syntax> {
  const require = createRequire(import.meta.url);
  const wasmDir = join(dirname(require.resolve("@vscode/tree-sitter-wasm/package.json")), "wasm");
  await Parser.init();
  const names: SyntaxLanguage[] = ["python", "javascript", "typescript", "tsx"];
  const languages = await Promise.all(
    names.map((n) => Language.load(readFileSync(join(wasmDir, `tree-sitter-${n}.wasm`)))),
  );
  const parsers = new Map<SyntaxLanguage, Parser>();
  names.forEach((name, i) => {
    const parser = new Parser();
    parser.setLanguage(languages[i]!);
    parsers.set(name, parser);
  });
  return {
    withTree<T>(language: SyntaxLanguage, text: string, use: (root: Node) => T): T {
      const tree: Tree | null = parsers.get(language)!.parse(text);
      if (!tree) throw new Error(`tree-sitter returned no tree for ${language}`);
      try {
        return use(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}

/**
 * The named nodes of `types` under `node` (itself included), depth-first in source order. Walks with
 * a cursor, so only matching nodes become Node objects (each one costs a call into wasm).
 */
export function nodesOfType(node: Node, types: ReadonlySet<string>): Node[] {
  const out: Node[] = [];
  const cursor = node.walk();
  try {
    for (;;) {
      if (cursor.nodeIsNamed && types.has(cursor.nodeType)) out.push(cursor.currentNode);
      if (cursor.gotoFirstChild()) continue;
      for (;;) {
        if (cursor.currentDepth === 0) return out;
        if (cursor.gotoNextSibling()) break;
        cursor.gotoParent();
      }
    }
  } finally {
    cursor.delete();
  }
}
