import type { Node } from "web-tree-sitter";
import type { Span } from "../types.ts";

// Small questions about JavaScript syntax nodes that the test reader, its assertions and its tables share.

export const FUNCTIONS = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "function_declaration",
  "method_definition",
]);

/** `it` → ["it"], `it.only` → ["it", "only"]; null for anything else. */
export function calleePath(node: Node): string[] | null {
  if (node.type === "identifier") return [node.text];
  if (node.type === "member_expression") {
    const object = node.childForFieldName("object");
    const property = node.childForFieldName("property");
    const head = object && calleePath(object);
    return head && property ? [...head, property.text] : null;
  }
  return null;
}

export function argumentsOf(call: Node): Node[] {
  const args = call.childForFieldName("arguments");
  if (args?.type !== "arguments") return [];
  return args.namedChildren.filter((c) => c.type !== "comment");
}

export function enclosingAny(node: Node, types: ReadonlySet<string>): Node | null {
  for (let p = node.parent; p; p = p.parent) if (types.has(p.type)) return p;
  return null;
}

export function spanOf(node: Node): Span {
  return { start: node.startIndex, end: node.endIndex };
}
