import type { Node } from "web-tree-sitter";
import type { TestLiteral } from "../types.ts";
import { decodePythonString, parsePythonFloat, parsePythonInteger } from "./literals.ts";
import { argumentsOf, spanOf } from "./syntax-nodes.ts";

// The literals of a Python test a perturbation may change, and their values (exclusions: analyse.ts).

const NAME_CALLS = new Set([
  "getattr",
  "hasattr",
  "setattr",
  "delattr",
  "open",
  "import_module",
  "__import__",
  "compile",
  "print",
  "setenv",
  "delenv",
  "setitem",
  "delitem",
  "chdir",
  "syspath_prepend",
  "patch",
  "object",
  "skip",
  "skipif",
  "xfail",
  "fail",
  "approx",
  "raises",
  "warns",
  "deprecated_call",
  "fixture",
  "skipTest",
  "subTest",
  "get",
  "getLogger",
  "debug",
  "info",
  "warning",
  "importorskip",
]);

const LITERAL_TYPES = new Set(["integer", "float", "string", "concatenated_string", "true", "false"]);
const COLLECTION_TYPES = new Set(["list", "tuple", "set"]);

/** The literal nodes under `node` a perturbation may change (exclusions in the module comment). */
export function literalNodes(node: Node, skip: ReadonlySet<number> = new Set()): Node[] {
  const out: Node[] = [];
  const visit = (n: Node) => {
    if (skip.has(n.startIndex * 1e6 + n.endIndex)) return;
    switch (n.type) {
      case "comment":
      case "decorator":
      case "class_definition":
        return;
      case "expression_statement":
        // A string standing alone as a statement is a docstring or a comment.
        if (n.namedChildCount === 1 && n.namedChildren[0]!.type === "string") return;
        break;
      case "keyword_argument": {
        const value = n.childForFieldName("value");
        if (value) visit(value);
        return;
      }
      case "pair": {
        const value = n.childForFieldName("value");
        if (value) visit(value);
        return;
      }
      case "subscript": {
        const value = n.childForFieldName("value");
        if (value) visit(value);
        return;
      }
      case "attribute": {
        const object = n.childForFieldName("object");
        if (object) visit(object);
        return;
      }
      case "call": {
        const callee = n.childForFieldName("function");
        if (callee) visit(callee);
        if (!NAME_CALLS.has(lastName(callee))) for (const a of argumentsOf(n) ?? []) visit(a);
        return;
      }
      case "unary_operator": {
        const argument = n.childForFieldName("argument");
        if (
          argument &&
          (argument.type === "integer" || argument.type === "float") &&
          n.text.startsWith("-")
        ) {
          out.push(n);
          return;
        }
        break;
      }
      default:
        if (LITERAL_TYPES.has(n.type)) {
          out.push(n);
          return;
        }
        if (COLLECTION_TYPES.has(n.type)) out.push(n);
    }
    for (const c of n.namedChildren) visit(c);
  };
  visit(node);
  return out;
}

function lastName(callee: Node | null): string {
  if (!callee) return "";
  if (callee.type === "attribute") return callee.childForFieldName("attribute")?.text ?? "";
  return callee.text;
}

export function literalValue(node: Node): TestLiteral["value"] | null {
  switch (node.type) {
    case "integer":
    case "float":
      return numberValue(node, false);
    case "unary_operator":
      return numberValue(node.childForFieldName("argument")!, true);
    case "string": {
      const decoded = decodePythonString(node.text);
      return decoded && { kind: "string", value: decoded.value, bytes: decoded.bytes };
    }
    case "concatenated_string": {
      const parts = node.namedChildren
        .filter((c) => c.type === "string")
        .map((c) => decodePythonString(c.text));
      if (parts.some((p) => p === null) || new Set(parts.map((p) => p!.bytes)).size !== 1) return null;
      return { kind: "string", value: parts.map((p) => p!.value).join(""), bytes: parts[0]!.bytes };
    }
    case "true":
    case "false":
      return { kind: "boolean", value: node.type === "true" };
    case "list":
    case "tuple":
    case "set": {
      const elements = node.namedChildren.filter((c) => c.type !== "comment");
      if (elements.some((e) => e.type.endsWith("splat") || e.type === "parenthesized_list_splat"))
        return null;
      const [open, close] =
        node.type === "list" ? ["[", "]"] : node.type === "tuple" ? ["(", ")"] : ["{", "}"];
      return { kind: "collection", elements: elements.map(spanOf), open: open!, close: close! };
    }
    default:
      return null;
  }
}

function numberValue(node: Node, negative: boolean): TestLiteral["value"] | null {
  const text = node.text;
  if (node.type === "integer") {
    const integer = parsePythonInteger(text);
    if (integer === null) return null;
    const value = negative ? -integer : integer;
    return {
      kind: "number",
      integer: value,
      value: Number(value),
      decimals: 0,
      exponent: null,
      bigint: false,
    };
  }
  const float = parsePythonFloat(text);
  if (!float) return null;
  return {
    kind: "number",
    integer: null,
    value: negative ? -float.value : float.value,
    decimals: float.decimals,
    exponent: float.exponent,
    bigint: false,
  };
}

/** Whether an expression is made of literals only (`3`, `"x"`, `[1, (2, "a")]`, `-1`, `2 ** 8`). */
export function isConstant(node: Node): boolean {
  switch (node.type) {
    case "integer":
    case "float":
    case "string":
    case "concatenated_string":
    case "true":
    case "false":
    case "none":
      return !(node.type === "string" && node.namedChildren.some((c) => c.type === "interpolation"));
    case "unary_operator":
    case "binary_operator":
    case "parenthesized_expression":
    case "list":
    case "tuple":
    case "set":
    case "dictionary":
    case "pair":
      return node.namedChildren.filter((c) => c.type !== "comment").every(isConstant);
    default:
      return false;
  }
}
