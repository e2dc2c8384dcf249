import type { Node } from "web-tree-sitter";
import type { ProbeAdapter } from "../adapters.ts";
import { lineOf, lineStarts } from "../source-lines.ts";
import type { ParameterTable, Span, TestAssertion, TestLiteral, TestModule, TestSite } from "../types.ts";
import { type Bindings, bindingsOf, collectAssertions, expectCounts, type Found } from "./assertions.ts";
import { literalNodes, literalValue } from "./input-literals.ts";
import { decodeJsString } from "./literals.ts";
import { loopTables, parameterNames, referencesOnlyIn, rowColumns } from "./parameter-tables.ts";
import { argumentsOf, calleePath, enclosingAny, FUNCTIONS, spanOf } from "./syntax-nodes.ts";

/**
 * Reads a JavaScript or TypeScript test module (node:test, mocha, jest, vitest) from its syntax tree:
 * each test declared with the adapter's test functions inside its suites (`describe(...)`), its
 * literal inputs, and the assertions its probes turn into observations.
 *
 * Assertions rewritten: node:assert (and chai's `assert`) through whatever name the module binds it to
 * (`assert.strictEqual`, `assert(x)`, a destructured `deepStrictEqual`), `assert.throws/rejects`, and
 * `expect(x)` chains of jest, vitest and chai (`.toBe`, `.not.toEqual`, `.rejects.toThrow`,
 * `.to.deep.equal`, `.to.throw`…). `expect.assertions(n)` is dropped: probes count nothing.
 *
 * Literal inputs are the numbers, strings (and templates without substitutions), booleans and arrays
 * of a test's body and of its `.each` table, except: expected operands and what an assertion does not
 * evaluate as input, table columns and loop variables that only reach expected operands, object keys,
 * member names and subscripts, TypeScript types, and the arguments of calls that name things
 * (`require`, `jest.mock`, `spyOn`, `this.timeout`…).
 */

export function analyseJs(root: Node, file: string, text: string, adapter: ProbeAdapter): TestModule {
  const lines = lineStarts(text);
  const bindings = bindingsOf(root);
  const tests: TestSite[] = [];
  const visit = (node: Node, titles: (string | null)[]) => {
    if (node.type === "call_expression") {
      const declared = declaration(node, adapter);
      if (declared?.kind === "suite") {
        if (declared.fn) visit(declared.fn, [...titles, declared.title]);
        return;
      }
      if (declared?.kind === "test") {
        tests.push(analyseTest(node, declared, titles, file, lines, bindings));
        return;
      }
      if (declared?.kind === "skipped") return;
    }
    for (const child of node.namedChildren) visit(child, titles);
  };
  visit(root, []);

  const inTest = (n: Node) => tests.some((t) => n.startIndex >= t.span.start && n.endIndex <= t.span.end);
  const helperAssertions: TestAssertion[] = [];
  // Helpers, fixtures and hooks: functions outside tests that are not suites' bodies, outermost first
  // (a helper's nested functions are walked with it).
  const helpers = root.descendantsOfType([...FUNCTIONS]).filter((fn) => {
    if (inTest(fn) || isSuiteCallback(fn, adapter)) return false;
    const outer = enclosingAny(fn, FUNCTIONS);
    return outer === null || isSuiteCallback(outer, adapter);
  });
  for (const fn of helpers) {
    const body = fn.childForFieldName("body");
    if (body)
      helperAssertions.push(
        ...collectAssertions(body, fn, "h", helperAssertions.length, bindings).map(strip),
      );
  }
  return {
    file,
    text,
    tests,
    helperAssertions,
    preambleEnd: preambleEnd(root),
    esm:
      /\.m[jt]s$/.test(file) ||
      root.namedChildren.some((c) => c.type === "import_statement" || c.type === "export_statement"),
  };
}

interface Declaration {
  kind: "test" | "suite" | "skipped";
  title: string | null;
  titleNode: Node | null;
  fn: Node | null;
  /** `test.each(table)`: the table argument. */
  table: Node | null;
}

function declaration(call: Node, adapter: ProbeAdapter): Declaration | null {
  let callee = call.childForFieldName("function");
  let table: Node | null = null;
  if (callee?.type === "call_expression" && adapter.eachTables) {
    const inner = callee.childForFieldName("function");
    if (inner?.type === "member_expression" && inner.childForFieldName("property")?.text === "each") {
      table = argumentsOf(callee)[0] ?? null;
      callee = inner.childForFieldName("object");
    } else return null;
  }
  if (!callee) return null;
  const path = calleePath(callee);
  if (!path) return null;
  const [head, ...modifiers] = path;
  const isTest = adapter.testFunctions.has(head!);
  const isSuite = adapter.suiteFunctions.has(head!);
  if (!isTest && !isSuite) return null;
  if (modifiers.some((m) => m === "skip" || m === "todo"))
    return { kind: "skipped", title: null, titleNode: null, fn: null, table };
  if (modifiers.some((m) => m !== "only" && m !== "concurrent" && m !== "sequential" && m !== "each"))
    return null;
  const args = argumentsOf(call);
  const fn =
    [...args]
      .reverse()
      .find(
        (a) => a.type === "arrow_function" || a.type === "function_expression" || a.type === "function",
      ) ?? null;
  const titleNode = args[0] ?? null;
  const title =
    titleNode && (titleNode.type === "string" || titleNode.type === "template_string")
      ? decodeJsString(titleNode.text)
      : null;
  if (!fn) return null;
  return { kind: isTest ? "test" : "suite", title, titleNode, fn, table };
}

function isSuiteCallback(fn: Node, adapter: ProbeAdapter): boolean {
  const call = fn.parent?.parent;
  if (call?.type !== "call_expression") return false;
  const d = declaration(call, adapter);
  return d?.kind === "suite" && d.fn?.startIndex === fn.startIndex;
}

function analyseTest(
  call: Node,
  declared: Declaration,
  titles: readonly (string | null)[],
  file: string,
  lines: readonly number[],
  bindings: Bindings,
): TestSite {
  const fn = declared.fn!;
  const body = fn.childForFieldName("body")!;
  const assertions = collectAssertions(body, fn, "a", 0, bindings);
  const removals = expectCounts(body, bindings);
  const expected = assertions.flatMap((a) => (a.expected ? [a.expected] : []));
  const onlyExpected = (name: string) => referencesOnlyIn(body, name, expected);

  const found: { node: Node; row?: { table: number; row: number } }[] = [];
  const tables: ParameterTable[] = [];
  if (declared.table?.type === "array") {
    const rows = declared.table.namedChildren.filter((c) => c.type !== "comment");
    tables.push({ span: spanOf(declared.table), rows: rows.map(spanOf), drop: [], width: 1 });
    const names = parameterNames(fn);
    rows.forEach((row, r) => {
      for (const column of rowColumns(row, names, onlyExpected))
        for (const node of literalNodes(column)) found.push({ node, row: { table: 0, row: r } });
    });
  }
  const loops = loopTables(body, onlyExpected);
  const blocked = [...removals, ...loops.tables];
  for (const node of literalNodes(body, blocked)) if (isInput(node, assertions)) found.push({ node });
  for (const node of loops.inputs) found.push({ node });

  const literals: TestLiteral[] = [];
  const seen = new Set<string>();
  for (const { node, row } of found.sort((a, b) => a.node.startIndex - b.node.startIndex)) {
    const key = `${node.startIndex}:${node.endIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const value = literalValue(node);
    if (!value) continue;
    literals.push({
      index: literals.length,
      span: spanOf(node),
      line: lineOf(lines, node.startIndex),
      value,
      ...(row && { row }),
    });
  }
  const anchors: Record<string, Span> = { fn: spanOf(fn) };
  if (declared.titleNode) anchors.title = spanOf(declared.titleNode);
  if (call.parent?.type === "expression_statement") anchors.statement = spanOf(call.parent);
  removals.forEach((r, i) => {
    anchors[`remove${i}`] = r;
  });
  const allTitles = [...titles, declared.title];
  return {
    id: `${file}::${allTitles.map((t) => t ?? `<dynamic title, line ${lineOf(lines, call.startIndex)}>`).join(" > ")}`,
    staticId: allTitles.every((t) => t !== null) && declared.table === null,
    line: lineOf(lines, call.startIndex),
    span: spanOf(call),
    literals,
    assertions: assertions.map(strip),
    tables,
    anchors,
    async: fn.children.some((c) => c.type === "async"),
  };
}

function strip(a: Found): TestAssertion {
  const { inputs: _inputs, ...rest } = a;
  return rest;
}

function isInput(node: Node, assertions: readonly Found[]): boolean {
  for (const a of assertions) {
    if (node.startIndex >= a.span.start && node.endIndex <= a.span.end)
      return a.inputs.some((s) => node.startIndex >= s.start && node.endIndex <= s.end);
  }
  return true;
}

function preambleEnd(root: Node): number {
  let end = 0;
  for (const child of root.namedChildren) {
    if (child.type === "comment" || child.type === "hash_bang_line") {
      if (child.type === "hash_bang_line") end = child.endIndex;
      continue;
    }
    const directive =
      child.type === "expression_statement" &&
      child.namedChildren[0]?.type === "string" &&
      child.namedChildCount === 1;
    if (directive) end = child.endIndex;
    else break;
  }
  return end;
}
