import type { Node } from "web-tree-sitter";
import type { AssertionKind, Span, TestAssertion } from "../types.ts";
import { isConstant } from "./input-literals.ts";
import { argumentsOf, enclosing, spanOf } from "./syntax-nodes.ts";

// The assertions of a pytest or unittest body that probes turn into observations (which ones: analyse.ts).

const EQUALITY_METHODS: Record<string, string> = {
  assertEqual: "==",
  assertEquals: "==",
  assertListEqual: "==",
  assertTupleEqual: "==",
  assertDictEqual: "==",
  assertSetEqual: "==",
  assertMultiLineEqual: "==",
  assertSequenceEqual: "==",
  assertNotEqual: "!=",
  assertNotEquals: "!=",
  assertCountEqual: "countEqual",
  assertAlmostEqual: "almostEqual",
  assertNotAlmostEqual: "notAlmostEqual",
};
const VALUE_METHODS: Record<string, string> = {
  assertTrue: "truthy",
  assertFalse: "falsy",
  assertIsNone: "isNone",
  assertIsNotNone: "isNotNone",
};
const OPERAND_METHODS: Record<string, string> = {
  assertIn: "in",
  assertNotIn: "not in",
  assertIs: "is",
  assertIsNot: "is not",
  assertIsInstance: "isinstance",
  assertNotIsInstance: "not isinstance",
  assertGreater: ">",
  assertGreaterEqual: ">=",
  assertLess: "<",
  assertLessEqual: "<=",
  assertRegex: "regex",
  assertNotRegex: "not regex",
};
const RAISES = new Set(["pytest.raises", "raises", "self.assertRaises", "self.assertRaisesRegex"]);
const WARNS = new Set([
  "pytest.warns",
  "warns",
  "pytest.deprecated_call",
  "deprecated_call",
  "self.assertWarns",
]);

export type Found = TestAssertion & { inputs: Span[] };

export function collectAssertions(body: Node, prefix: string, first: number): Found[] {
  const out: Found[] = [];
  const visit = (node: Node) => {
    if (node.type === "class_definition") return;
    const found = assertionAt(node);
    if (found) {
      for (const f of found) out.push({ ...f, key: `${prefix}${first + out.length}` });
      if (node.type !== "with_statement") return;
    }
    for (const child of node.namedChildren) visit(child);
  };
  visit(body);
  return out;
}

type Draft = Omit<Found, "key">;

function assertionAt(node: Node): Draft[] | null {
  if (node.type === "assert_statement") {
    const draft = assertStatement(node);
    return draft ? [draft] : null;
  }
  if (node.type === "with_statement") {
    const clause = node.namedChildren.find((c) => c.type === "with_clause");
    const drafts = (clause?.namedChildren ?? []).flatMap((item) => {
      const value = item.childForFieldName("value");
      const call = value?.type === "as_pattern" ? value.namedChildren[0] : value;
      return call?.type === "call" ? contextAssertion(call) : [];
    });
    return drafts.length ? drafts : null;
  }
  if (
    node.type === "expression_statement" &&
    node.namedChildCount === 1 &&
    node.namedChildren[0]!.type === "call"
  ) {
    const draft = callAssertion(node.namedChildren[0]!, node);
    return draft ? [draft] : null;
  }
  return null;
}

function assertStatement(node: Node): Draft | null {
  const expression = node.namedChildren.filter((c) => c.type !== "comment")[0];
  if (!expression || !evaluable(expression)) return null;
  const span = spanOf(node);
  if (expression.type === "comparison_operator") {
    const operators = expression.childrenForFieldName("operators").map((o) => o.type);
    const operands = expression.namedChildren.filter((c) => c.type !== "comment");
    if (operators.length === 1 && operands.length === 2 && (operators[0] === "==" || operators[0] === "!=")) {
      return equality(span, operands[0]!, operands[1]!, operators[0]);
    }
    if (operators.length === 1 && operands.length === 2) {
      const inputs = operands.filter((o) => !isConstant(o)).map(spanOf);
      return draft(span, "operands", operands.map(spanOf), operators[0]!, inputs);
    }
    return draft(span, "value", [spanOf(expression)], "truthy", [spanOf(expression)]);
  }
  if (expression.type === "not_operator") {
    const argument = expression.childForFieldName("argument")!;
    return draft(span, "value", [spanOf(argument)], "falsy", [spanOf(argument)]);
  }
  return draft(span, "value", [spanOf(expression)], "truthy", [spanOf(expression)]);
}

function equality(span: Span, left: Node, right: Node, operator: string): Draft {
  const [actual, expected] = isConstant(left) && !isConstant(right) ? [right, left] : [left, right];
  return {
    ...draft(span, "equal", [spanOf(actual), spanOf(expected)], operator, [spanOf(actual)]),
    expected: spanOf(expected),
  };
}

function contextAssertion(call: Node): Draft[] {
  const callee = call.childForFieldName("function")?.text ?? "";
  const args = argumentsOf(call);
  if (!args) return [];
  const positional = args.filter((a) => a.type !== "keyword_argument");
  if (RAISES.has(callee) && positional.length >= 1 && (callee.startsWith("self.") || positional.length === 1))
    return [draft(spanOf(call), "raises-block", [spanOf(positional[0]!)], "raises", [])];
  if (WARNS.has(callee) && positional.length <= 1)
    return [draft(spanOf(call), "warns-block", [], "warns", [])];
  return [];
}

function callAssertion(call: Node, statement: Node): Draft | null {
  const callee = call.childForFieldName("function")?.text ?? "";
  const args = argumentsOf(call);
  if (!args?.every(evaluable)) return null;
  const positional = args.filter((a) => a.type !== "keyword_argument" && !a.type.endsWith("splat"));
  const span = spanOf(statement);
  if ((callee === "pytest.raises" || callee === "self.assertRaises") && positional.length >= 2) {
    const rest = { start: args[1]!.startIndex, end: args.at(-1)!.endIndex };
    return draft(span, "throws", [spanOf(positional[0]!), rest], "raises", [rest]);
  }
  const method = callee.startsWith("self.") ? callee.slice(5) : "";
  if (method in EQUALITY_METHODS && positional.length >= 2)
    return equality(span, positional[0]!, positional[1]!, EQUALITY_METHODS[method]!);
  if (method in VALUE_METHODS && positional.length >= 1)
    return draft(span, "value", [spanOf(positional[0]!)], VALUE_METHODS[method]!, [spanOf(positional[0]!)]);
  if (method in OPERAND_METHODS && positional.length >= 2) {
    const operands = positional.slice(0, 2);
    const inputs = operands.filter((o) => !isConstant(o)).map(spanOf);
    return draft(span, "operands", operands.map(spanOf), OPERAND_METHODS[method]!, inputs);
  }
  return null;
}

function draft(span: Span, kind: AssertionKind, operands: Span[], operator: string, inputs: Span[]): Draft {
  return { kind, span, operands, operator, awaits: false, inputs };
}

/** Whether an expression can move into a lambda unchanged: no await, yield or `:=` of its own. */
function evaluable(node: Node): boolean {
  const bad = node.descendantsOfType(["await", "yield", "named_expression"]);
  return bad.every((b) => enclosing(b, "lambda", node) || enclosing(b, "function_definition", node));
}
