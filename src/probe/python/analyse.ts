import type { Node } from "web-tree-sitter";
import { lineOf, lineStarts } from "../source-lines.ts";
import type { ParameterTable, TestAssertion, TestLiteral, TestModule, TestSite } from "../types.ts";
import { collectAssertions, type Found } from "./assertions.ts";
import { literalNodes, literalValue } from "./input-literals.ts";
import { loopTableRows, parametrizeTable, referencesOnlyIn } from "./parameter-tables.ts";
import { enclosing } from "./syntax-nodes.ts";

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
