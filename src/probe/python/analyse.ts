import type { Node } from "web-tree-sitter";
import type {
  AssertionKind,
  ParameterTable,
  Span,
  TestAssertion,
  TestLiteral,
  TestModule,
  TestSite,
} from "../types.ts";
import { decodePythonString, parsePythonFloat, parsePythonInteger } from "./literals.ts";

/**
 * Reads a pytest module (pytest functions, `Test*` classes, unittest.TestCase methods) from its
 * syntax tree: each test's literal inputs and the assertions its probes turn into observations.
 *
 * Assertions rewritten: `assert` statements; `with pytest.raises/warns/deprecated_call(...)` and
 * `with self.assertRaises/assertWarns(...)`; `pytest.raises(E, fn, ...)`; unittest's `self.assert*`.
 * An assertion whose operands await, yield or bind names (`:=`) is left as it is: its failure ends the
 * probe, which is recorded too.
 *
 * Literal inputs are the numbers, strings, booleans and list/tuple/set displays of a test's body and
 * of its parametrize table, except: the expected operand of an equality and everything else an
 * assertion does not evaluate as input (messages, exception types, `match=`), table columns and loop
 * variables that only reach expected operands, subscripts (they select what is observed), dict keys,
 * docstrings, f-strings, and the arguments of calls that name things rather than pass inputs
 * (`getattr(x, "name")`, `monkeypatch.setenv`, `open`, `pytest.approx`…).
 */

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

type Found = TestAssertion & { inputs: Span[] };

export function analysePython(root: Node, file: string, text: string): TestModule {
  const tests: TestSite[] = [];
  const lines = lineStarts(text);
  const visitDefinitions = (statements: readonly Node[], classes: string[]) => {
    for (const statement of statements) {
      const inner =
        statement.type === "decorated_definition" ? statement.childForFieldName("definition") : statement;
      if (!inner) continue;
      const name = inner.childForFieldName("name")?.text ?? "";
      if (inner.type === "function_definition" && name.startsWith("test")) {
        tests.push(analyseTest(statement, inner, [...classes, name], file, lines));
      } else if (inner.type === "class_definition" && isTestClass(inner, name)) {
        const body = inner.childForFieldName("body");
        if (body) visitDefinitions(body.namedChildren, [...classes, name]);
      }
    }
  };
  visitDefinitions(root.namedChildren, []);

  const helperAssertions: TestAssertion[] = [];
  const inTest = (n: Node) => tests.some((t) => n.startIndex >= t.span.start && n.endIndex <= t.span.end);
  for (const fn of root.descendantsOfType("function_definition")) {
    if (inTest(fn) || enclosing(fn, "function_definition")) continue;
    const body = fn.childForFieldName("body");
    if (body) helperAssertions.push(...collectAssertions(body, "h", helperAssertions.length).map(strip));
  }
  return { file, text, tests, helperAssertions, preambleEnd: preambleEnd(root), esm: false };
}

function isTestClass(node: Node, name: string): boolean {
  if (name.startsWith("Test")) return true;
  const bases = node.childForFieldName("superclasses")?.text ?? "";
  return /TestCase\b/.test(bases);
}

function analyseTest(
  outer: Node,
  definition: Node,
  names: string[],
  file: string,
  lines: readonly number[],
): TestSite {
  const body = definition.childForFieldName("body")!;
  const nameNode = definition.childForFieldName("name")!;
  const assertions = collectAssertions(body, "a", 0);
  const expected = assertions.flatMap((a) => (a.expected ? [a.expected] : []));
  const onlyExpected = (name: string) => referencesOnlyIn(body, name, expected);

  const decorators =
    outer.type === "decorated_definition" ? outer.namedChildren.filter((n) => n.type === "decorator") : [];
  const tables: ParameterTable[] = [];
  const found: { node: Node; row?: { table: number; row: number } }[] = [];
  for (const decorator of decorators) {
    const table = parametrizeTable(decorator);
    if (!table) continue;
    const index = tables.length;
    tables.push(table.table);
    const skip = new Set(table.names.map((n, i) => (onlyExpected(n) ? i : -1)).filter((i) => i >= 0));
    table.columns.forEach((columns, row) => {
      columns.forEach((column, c) => {
        if (skip.has(c)) return;
        for (const node of literalNodes(column)) found.push({ node, row: { table: index, row } });
      });
    });
  }
  const loopTables = loopTableRows(body, onlyExpected);
  for (const node of literalNodes(body, loopTables.skip)) {
    if (!isInput(node, assertions)) continue;
    found.push({ node });
  }
  for (const node of loopTables.inputs) found.push({ node });

  const literals: TestLiteral[] = [];
  const seen = new Set<number>();
  for (const { node, row } of found.sort((a, b) => a.node.startIndex - b.node.startIndex)) {
    if (seen.has(node.startIndex * 1e6 + node.endIndex)) continue;
    seen.add(node.startIndex * 1e6 + node.endIndex);
    const value = literalValue(node);
    if (!value) continue;
    literals.push({
      index: literals.length,
      span: { start: node.startIndex, end: node.endIndex },
      line: lineOf(lines, node.startIndex),
      value,
      ...(row && { row }),
    });
  }
  return {
    id: `${file}::${names.join("::")}`,
    staticId: true,
    line: lineOf(lines, definition.startIndex),
    span: { start: outer.startIndex, end: outer.endIndex },
    literals,
    assertions: assertions.map(strip),
    tables,
    anchors: { name: { start: nameNode.startIndex, end: nameNode.endIndex } },
    async: definition.children.some((c) => c.type === "async"),
  };
}

function strip(a: Found): TestAssertion {
  const { inputs: _inputs, ...rest } = a;
  return rest;
}

/** Whether a literal is an input: outside every assertion, or inside an input operand of one. */
function isInput(node: Node, assertions: readonly Found[]): boolean {
  for (const a of assertions) {
    if (node.startIndex >= a.span.start && node.endIndex <= a.span.end)
      return a.inputs.some((s) => node.startIndex >= s.start && node.endIndex <= s.end);
  }
  return true;
}

// ------------------------------------------------------------------------------------------ assertions

function collectAssertions(body: Node, prefix: string, first: number): Found[] {
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

function argumentsOf(call: Node): Node[] | null {
  const list = call.childForFieldName("arguments");
  if (list?.type !== "argument_list") return null;
  return list.namedChildren.filter((c) => c.type !== "comment");
}

/** Whether an expression can move into a lambda unchanged: no await, yield or `:=` of its own. */
function evaluable(node: Node): boolean {
  const bad = node.descendantsOfType(["await", "yield", "named_expression"]);
  return bad.every((b) => enclosing(b, "lambda", node) || enclosing(b, "function_definition", node));
}

// -------------------------------------------------------------------------------------------- literals

const LITERAL_TYPES = new Set(["integer", "float", "string", "concatenated_string", "true", "false"]);
const COLLECTION_TYPES = new Set(["list", "tuple", "set"]);

/** The literal nodes under `node` a perturbation may change (exclusions in the module comment). */
function literalNodes(node: Node, skip: ReadonlySet<number> = new Set()): Node[] {
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

function literalValue(node: Node): TestLiteral["value"] | null {
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
function isConstant(node: Node): boolean {
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

// ---------------------------------------------------------------------------------------------- tables

interface Parametrize {
  table: ParameterTable;
  names: string[];
  /** Per row, the node of each column (empty when the row is not a display). */
  columns: Node[][];
}

function parametrizeTable(decorator: Node): Parametrize | null {
  const call = decorator.namedChildren.find((c) => c.type === "call");
  if (!call || !/(^|\.)parametrize$/.test(call.childForFieldName("function")?.text ?? "")) return null;
  const args = argumentsOf(call);
  if (!args) return null;
  const keyword = (name: string) =>
    args
      .find((a) => a.type === "keyword_argument" && a.childForFieldName("name")?.text === name)
      ?.childForFieldName("value") ?? undefined;
  const positional = args.filter((a) => a.type !== "keyword_argument");
  const namesNode = positional[0] ?? keyword("argnames");
  const valuesNode = positional[1] ?? keyword("argvalues");
  if (!namesNode || !valuesNode || (valuesNode.type !== "list" && valuesNode.type !== "tuple")) return null;
  const names = parameterNames(namesNode);
  if (!names) return null;
  const rows = valuesNode.namedChildren.filter((c) => c.type !== "comment");
  const columns = rows.map((row) => rowColumns(row, names.length));
  const drop: Span[] = [];
  args.forEach((a, i) => {
    if (a.type === "keyword_argument" && a.childForFieldName("name")?.text === "ids" && i > 0)
      drop.push({ start: args[i - 1]!.endIndex, end: a.endIndex });
  });
  return {
    table: { span: spanOf(valuesNode), rows: rows.map(spanOf), drop, width: names.length },
    names,
    columns,
  };
}

function parameterNames(node: Node): string[] | null {
  if (node.type === "string") {
    const decoded = decodePythonString(node.text);
    return decoded
      ? decoded.value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : null;
  }
  if (node.type === "list" || node.type === "tuple") {
    const names = node.namedChildren.map((c) =>
      c.type === "string" ? decodePythonString(c.text)?.value : undefined,
    );
    return names.every((n) => n !== undefined) ? (names as string[]) : null;
  }
  return null;
}

function rowColumns(row: Node, width: number): Node[] {
  if (row.type === "call" && /(^|\.)param$/.test(row.childForFieldName("function")?.text ?? "")) {
    return (argumentsOf(row) ?? []).filter((a) => a.type !== "keyword_argument");
  }
  if (width === 1) return [row];
  if (row.type === "tuple" || row.type === "list")
    return row.namedChildren.filter((c) => c.type !== "comment");
  return [];
}

/**
 * Tables a test loops over (`for text, expected in [("a", 1), ...]:`): their rows are cases, not
 * collections to perturb, and the columns that only reach expected operands are not inputs.
 */
function loopTableRows(
  body: Node,
  onlyExpected: (name: string) => boolean,
): { skip: Set<number>; inputs: Node[] } {
  const skip = new Set<number>();
  const inputs: Node[] = [];
  for (const loop of body.descendantsOfType("for_statement")) {
    const left = loop.childForFieldName("left");
    const right = loop.childForFieldName("right");
    if (!left || !right || (right.type !== "list" && right.type !== "tuple")) continue;
    if (left.type !== "pattern_list" && left.type !== "tuple_pattern") continue;
    const names = left.namedChildren.map((n) => (n.type === "identifier" ? n.text : ""));
    const rows = right.namedChildren.filter((c) => c.type !== "comment");
    if (!rows.every((r) => (r.type === "tuple" || r.type === "list") && r.namedChildCount === names.length))
      continue;
    skip.add(right.startIndex * 1e6 + right.endIndex);
    for (const row of rows) {
      row.namedChildren.forEach((column, i) => {
        if (names[i] && !onlyExpected(names[i]!)) inputs.push(...literalNodes(column));
      });
    }
  }
  return { skip, inputs };
}

/**
 * Whether every use of `name` in `body` lies in one of `spans` (and there is at least one). A loop's
 * own target (`for text, want in ...`) binds the name: it is not a use.
 */
function referencesOnlyIn(body: Node, name: string, spans: readonly Span[]): boolean {
  const uses = body.descendantsOfType("identifier").filter((n) => n.text === name && !isLoopTarget(n));
  return (
    uses.length > 0 && uses.every((u) => spans.some((s) => u.startIndex >= s.start && u.endIndex <= s.end))
  );
}

function isLoopTarget(identifier: Node): boolean {
  for (let p = identifier.parent; p; p = p.parent) {
    if (p.type === "for_statement" || p.type === "for_in_clause") {
      const left = p.childForFieldName("left");
      return (
        left !== null && identifier.startIndex >= left.startIndex && identifier.endIndex <= left.endIndex
      );
    }
    if (p.type.endsWith("statement") || p.type === "block") return false;
  }
  return false;
}

// ------------------------------------------------------------------------------------------------ misc

function preambleEnd(root: Node): number {
  let end = 0;
  let first = true;
  for (const child of root.namedChildren) {
    if (child.type === "comment") continue;
    const docstring =
      first && child.type === "expression_statement" && child.namedChildren[0]?.type === "string";
    if (docstring || child.type === "future_import_statement") end = child.endIndex;
    else break;
    first = false;
  }
  return end;
}

/** The nearest ancestor of `type`, below `within` when given (nodes are compared by id: each access makes a new object). */
function enclosing(node: Node, type: string, within?: Node): Node | null {
  for (let p = node.parent; p && p.id !== within?.id; p = p.parent) if (p.type === type) return p;
  return null;
}

function spanOf(node: Node): Span {
  return { start: node.startIndex, end: node.endIndex };
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

export function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
