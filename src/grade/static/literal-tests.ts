import type { Node } from "web-tree-sitter";
import type { LiteralTest } from "./code-facts.ts";
import { nodesOfType } from "./syntax.ts";

// What a condition tests against literals, and the literal values of an expression: the literal side
// of the syntax facts, which the hard-coding finding reads (a branch on literal inputs returning literals).

/** The node types literalTests looks at; the rest of a condition is only walked through. */
const TEST_NODES = new Set(["comparison_operator", "binary_expression", "call", "call_expression"]);
const EQUALITY = new Set(["==", "===", "in", "is"]);
/** `[literals…].includes(x)`: membership of x in a literal list. */
const MEMBERSHIP_CALLS = new Set(["includes", "has", "indexOf"]);
/** `x.includes(literal)`, `x.startswith(literal)`…: x tested for a literal piece. */
const PIECE_CALLS = new Set([
  "includes",
  "indexOf",
  "startsWith",
  "endsWith",
  "startswith",
  "endswith",
  "find",
]);
/** Piece calls that read the subject at one end, not anywhere in it. */
const ANCHORED_CALLS = new Set(["startsWith", "endsWith", "startswith", "endswith"]);
/** A subject that is a slice at a position: `s[i:i+3]`, `s.slice(i, j)`, `s.substring(…)`, `s.charAt(i)`. */
const POSITIONAL_SUBJECT = /(?:\[[^[\]]*:[^[\]]*\]|\.(?:slice|substring|substr|charAt)\([^()]*\))$/;

/**
 * The literal tests of a condition, one entry per subject: `subject == literal` (either side),
 * `subject in (literals…)`, `literal in subject`, `[literals…].includes(subject)`,
 * `subject.startswith(literal)` and the like, or a bare switch-case literal.
 */
export function literalTests(condition: Node, python: boolean): LiteralTest[] {
  const bySubject = new Map<string, { values: string[]; anchored: boolean }>();
  const add = (subject: string, values: string[], anchored = POSITIONAL_SUBJECT.test(subject)) => {
    const seen = bySubject.get(subject);
    bySubject.set(subject, {
      values: [...(seen?.values ?? []), ...values],
      anchored: (seen?.anchored ?? true) && anchored,
    });
  };
  const found = () =>
    [...bySubject].map(([subject, { values, anchored }]) => ({
      subject,
      values,
      ...(anchored && { anchored }),
    }));
  if (condition.parent?.type === "switch_case") {
    const value = literalValue(condition, python);
    const subject = condition.parent.parent?.parent?.childForFieldName("value")?.text ?? "switch";
    if (value) add(subject.replace(/^\(|\)$/g, ""), value);
    return found();
  }
  for (const node of nodesOfType(condition, TEST_NODES)) {
    const comparison = python ? node.type === "comparison_operator" : node.type === "binary_expression";
    if (comparison && node.namedChildCount === 2) {
      // The operator token between the two operands (`not in` and `is not` are one token each).
      const operator = node.childForFieldName(python ? "operators" : "operator")?.type ?? "";
      if (!EQUALITY.has(operator)) continue;
      const [left, right] = node.namedChildren as [Node, Node];
      const rightValue = literalValue(right, python);
      const leftValue = literalValue(left, python);
      if (rightValue && !leftValue) add(left.text, rightValue);
      else if (leftValue && !rightValue) add(right.text, leftValue);
    } else if (node.type === "call_expression" || node.type === "call") {
      const callee = node.childForFieldName("function");
      const isMember = callee?.type === "member_expression" || callee?.type === "attribute";
      const object = isMember ? callee!.childForFieldName("object") : null;
      const method = (callee?.childForFieldName(python ? "attribute" : "property")?.text ?? "").toString();
      const argument = node.childForFieldName("arguments")?.namedChildren[0];
      if (!object || !argument) continue;
      const listed =
        object.type === "array" && MEMBERSHIP_CALLS.has(method) ? literalValue(object, python) : null;
      if (listed) add(argument.text, listed);
      const piece =
        PIECE_CALLS.has(method) && !literalValue(object, python) ? literalValue(argument, python) : null;
      if (piece) add(object.text, piece, ANCHORED_CALLS.has(method) || POSITIONAL_SUBJECT.test(object.text));
    }
  }
  return found();
}

const SCALAR_TYPES = new Set([
  "string",
  "integer",
  "float",
  "number",
  "template_string",
  "concatenated_string",
]);
/** Literal collection node types (Python and JavaScript). */
export const COLLECTION_TYPES = new Set(["tuple", "list", "set", "array", "dictionary", "object", "pair"]);

/**
 * The literal values of a literal expression (a string's contents, a number's text; every element of
 * a collection), or null when any part is computed. Booleans and null/None are not literals here:
 * returning them is a predicate, not a hard-coded answer.
 */
export function literalValue(node: Node, python: boolean): string[] | null {
  if (node.type === "parenthesized_expression" && node.namedChildren.length === 1) {
    return literalValue(node.namedChildren[0]!, python);
  }
  if (node.type === "unary_operator" || node.type === "unary_expression") {
    const arg = node.childForFieldName("argument");
    const op = node.children[0]?.type;
    if (arg && (op === "-" || op === "+") && /^(integer|float|number)$/.test(arg.type))
      return [node.text.replace(/\s+/g, "")];
    return null;
  }
  if (SCALAR_TYPES.has(node.type)) {
    if (node.namedChildren.some((c) => c?.type === "interpolation" || c?.type === "template_substitution"))
      return null;
    if (node.type === "concatenated_string") {
      const parts = node.namedChildren.map((c) => (c ? literalValue(c, python) : null));
      return parts.every((p) => p !== null) ? [parts.map((p) => p!.join("")).join("")] : null;
    }
    if (node.type === "string" || node.type === "template_string") {
      return [node.text.replace(/^[rRbBuUfF]{0,2}("""|'''|"|'|`)/, "").replace(/("""|'''|"|'|`)$/, "")];
    }
    return [node.text];
  }
  if (COLLECTION_TYPES.has(node.type)) {
    const values: string[] = [];
    for (const child of node.namedChildren) {
      if (!child || child.type === "comment") continue;
      if (child.type === "property_identifier" || child.type === "shorthand_property_identifier") return null;
      const inner = literalValue(child, python);
      if (inner === null) return null;
      values.push(...inner);
    }
    return values;
  }
  if (node.type === "property_identifier" && node.parent?.type === "pair") return [node.text];
  return null;
}
