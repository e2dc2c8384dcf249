import type { Node } from "web-tree-sitter";
import type { Span } from "../types.ts";

// Small questions about Python syntax nodes that the test reader, its assertions and its tables share.

export function argumentsOf(call: Node): Node[] | null {
  const list = call.childForFieldName("arguments");
  if (list?.type !== "argument_list") return null;
  return list.namedChildren.filter((c) => c.type !== "comment");
}

/** The nearest ancestor of `type`, below `within` when given (nodes are compared by id: each access makes a new object). */
export function enclosing(node: Node, type: string, within?: Node): Node | null {
  for (let p = node.parent; p && p.id !== within?.id; p = p.parent) if (p.type === type) return p;
  return null;
}

export function spanOf(node: Node): Span {
  return { start: node.startIndex, end: node.endIndex };
}
