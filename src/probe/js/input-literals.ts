import type { Node } from "web-tree-sitter";
import type { Span, TestLiteral } from "../types.ts";
import { decodeJsString, parseJsNumber } from "./literals.ts";
import { argumentsOf, spanOf } from "./syntax-nodes.ts";

// The literals of a JavaScript test a perturbation may change, and their values (exclusions: analyse.ts).

const NAME_CALLS = new Set([
  "require",
  "mock",
  "doMock",
  "unmock",
  "spyOn",
  "timeout",
  "slow",
  "retries",
  "skip",
  "todo",
  "defineProperty",
  "hasOwnProperty",
  "getOwnPropertyDescriptor",
  "get",
  "has",
  "log",
  "useFakeTimers",
  "setSystemTime",
  "stubEnv",
  "stubGlobal",
]);
/**
 * Calls whose first argument names what is listened for or how bytes are read — an event of an
 * emitter or a DOM target, a stream's encoding — and not an input: nudged, it only stops the test
 * hearing what it waits for (`res.on("zata")`: the response is never read and the test never ends).
 * The other arguments (a router's path, an emitted payload) stay inputs.
 */
const NAMING_FIRST_ARGUMENT = new Set([
  "on",
  "once",
  "off",
  "addListener",
  "prependListener",
  "prependOnceListener",
  "removeListener",
  "removeAllListeners",
  "listeners",
  "listenerCount",
  "emit",
  "addEventListener",
  "removeEventListener",
  "setEncoding",
]);
const TYPE_NODES = new Set([
  "type_annotation",
  "type_arguments",
  "type_parameters",
  "literal_type",
  "type_alias_declaration",
  "interface_declaration",
  "enum_declaration",
  "satisfies_expression",
]);

/** The literal nodes under `node` a perturbation may change (exclusions in the module comment). */
export function literalNodes(node: Node, blocked: readonly Span[] = []): Node[] {
  const out: Node[] = [];
  const visit = (n: Node) => {
    if (blocked.some((s) => n.startIndex >= s.start && n.endIndex <= s.end)) return;
    if (TYPE_NODES.has(n.type) || n.type === "comment" || n.type === "regex") return;
    switch (n.type) {
      case "pair": {
        const value = n.childForFieldName("value");
        if (value) visit(value);
        return;
      }
      case "member_expression": {
        const object = n.childForFieldName("object");
        if (object) visit(object);
        return;
      }
      case "subscript_expression": {
        const object = n.childForFieldName("object");
        if (object) visit(object);
        return;
      }
      case "as_expression": {
        const first = n.namedChildren[0];
        if (first) visit(first);
        return;
      }
      case "call_expression": {
        const callee = n.childForFieldName("function");
        if (callee) visit(callee);
        const name =
          callee?.type === "member_expression" ? callee.childForFieldName("property")?.text : callee?.text;
        if (!NAME_CALLS.has(name ?? ""))
          argumentsOf(n).forEach((a, i) => {
            if (i > 0 || !NAMING_FIRST_ARGUMENT.has(name ?? "")) visit(a);
          });
        return;
      }
      case "unary_expression": {
        const argument = n.childForFieldName("argument");
        if (argument?.type === "number" && n.childForFieldName("operator")?.type === "-") {
          out.push(n);
          return;
        }
        break;
      }
      case "number":
      case "string":
      case "true":
      case "false":
        out.push(n);
        return;
      case "template_string":
        if (!n.namedChildren.some((c) => c.type === "template_substitution")) out.push(n);
        else break;
        return;
      case "array":
        out.push(n);
        break;
    }
    for (const c of n.namedChildren) visit(c);
  };
  visit(node);
  return out;
}

export function literalValue(node: Node): TestLiteral["value"] | null {
  switch (node.type) {
    case "number":
    case "unary_expression": {
      const negative = node.type === "unary_expression";
      const parsed = parseJsNumber(negative ? node.childForFieldName("argument")!.text : node.text);
      if (!parsed) return null;
      if (parsed.integer !== null) {
        const integer = negative ? -parsed.integer : parsed.integer;
        return {
          kind: "number",
          integer,
          value: Number(integer),
          decimals: 0,
          exponent: null,
          bigint: parsed.bigint,
        };
      }
      return {
        kind: "number",
        integer: null,
        value: negative ? -parsed.value : parsed.value,
        decimals: parsed.decimals,
        exponent: parsed.exponent,
        bigint: false,
      };
    }
    case "string":
    case "template_string": {
      const value = decodeJsString(node.text);
      return value === null ? null : { kind: "string", value, bytes: false };
    }
    case "true":
    case "false":
      return { kind: "boolean", value: node.type === "true" };
    case "array": {
      const elements = node.namedChildren.filter((c) => c.type !== "comment");
      if (elements.some((e) => e.type === "spread_element") || /,\s*,/.test(node.text.replace(/\s+/g, " ")))
        return null;
      return { kind: "collection", elements: elements.map(spanOf), open: "[", close: "]" };
    }
    default:
      return null;
  }
}

export function isConstant(node: Node): boolean {
  switch (node.type) {
    case "number":
    case "string":
    case "true":
    case "false":
    case "null":
    case "undefined":
      return true;
    case "template_string":
      return !node.namedChildren.some((c) => c.type === "template_substitution");
    case "unary_expression":
    case "binary_expression":
    case "parenthesized_expression":
    case "array":
      return node.namedChildren.filter((c) => c.type !== "comment").every(isConstant);
    case "object":
      return node.namedChildren.every((p) => p.type === "pair" && isConstant(p.childForFieldName("value")!));
    default:
      return false;
  }
}
