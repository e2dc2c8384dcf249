import type { Node } from "web-tree-sitter";
import type { ProbeAdapter } from "../adapters.ts";
import { lineOf, lineStarts } from "../python/analyse.ts";
import type { ParameterTable, Span, TestAssertion, TestLiteral, TestModule, TestSite } from "../types.ts";
import { decodeJsString, parseJsNumber } from "./literals.ts";

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

const ASSERT_MODULES = new Set(["assert", "node:assert", "assert/strict", "node:assert/strict", "chai"]);
const EXPECT_MODULES = new Set(["vitest", "@jest/globals", "chai", "expect"]);
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
const EQUAL_METHODS = new Set([
  "equal",
  "strictEqual",
  "deepEqual",
  "deepStrictEqual",
  "notEqual",
  "notStrictEqual",
  "notDeepEqual",
  "notDeepStrictEqual",
]);
const VALUE_METHODS: Record<string, string> = {
  ok: "truthy",
  isOk: "truthy",
  isTrue: "truthy",
  isNotOk: "falsy",
  isFalse: "falsy",
  ifError: "isNullish",
  isNull: "isNullish",
  isUndefined: "isNullish",
  isNotNull: "matcher",
  isDefined: "matcher",
};
const THROW_MATCHERS = new Set([
  "toThrow",
  "toThrowError",
  "toThrowErrorMatchingSnapshot",
  "toThrowErrorMatchingInlineSnapshot",
  "throw",
  "throws",
  "Throw",
]);
const EQUAL_MATCHERS: Record<string, string> = {
  toBe: "toBe",
  toEqual: "toEqual",
  toStrictEqual: "toStrictEqual",
};
const CHAI_EQUAL = new Set(["equal", "equals", "eq", "eql", "eqls"]);
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
const FUNCTIONS = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "function_declaration",
  "method_definition",
]);

type Found = TestAssertion & { inputs: Span[] };
type Draft = Omit<Found, "key">;

interface Bindings {
  /** Names bound to node:assert or chai's assert (called as `assert(x)` and `assert.method(...)`). */
  assert: Set<string>;
  /** Names bound to single assert methods (`const { strictEqual } = require("assert")`). */
  methods: Map<string, string>;
  expect: Set<string>;
}

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

// ------------------------------------------------------------------------------------------- structure

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

/** `it` → ["it"], `it.only` → ["it", "only"]; null for anything else. */
function calleePath(node: Node): string[] | null {
  if (node.type === "identifier") return [node.text];
  if (node.type === "member_expression") {
    const object = node.childForFieldName("object");
    const property = node.childForFieldName("property");
    const head = object && calleePath(object);
    return head && property ? [...head, property.text] : null;
  }
  return null;
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

// ------------------------------------------------------------------------------------------ assertions

function bindingsOf(root: Node): Bindings {
  const bindings: Bindings = { assert: new Set(["assert"]), methods: new Map(), expect: new Set(["expect"]) };
  const bind = (source: string, imported: string, local: string) => {
    if (ASSERT_MODULES.has(source)) {
      if (imported === "default" || imported === "*" || imported === "strict" || imported === "assert")
        bindings.assert.add(local);
      else if (imported === "expect") bindings.expect.add(local);
      else bindings.methods.set(local, imported);
    } else if (EXPECT_MODULES.has(source) && imported === "expect") bindings.expect.add(local);
  };
  for (const statement of root.namedChildren) {
    if (statement.type === "import_statement") {
      const source = decodeJsString(statement.childForFieldName("source")?.text ?? "") ?? "";
      const clause = statement.namedChildren.find((c) => c.type === "import_clause");
      for (const part of clause?.namedChildren ?? []) {
        if (part.type === "identifier") bind(source, "default", part.text);
        else if (part.type === "namespace_import") bind(source, "*", part.namedChildren[0]?.text ?? "");
        else if (part.type === "named_imports")
          for (const spec of part.namedChildren.filter((s) => s.type === "import_specifier")) {
            const name = spec.childForFieldName("name")?.text ?? "";
            bind(source, name, spec.childForFieldName("alias")?.text ?? name);
          }
      }
    }
    if (statement.type === "lexical_declaration" || statement.type === "variable_declaration") {
      for (const declarator of statement.namedChildren.filter((c) => c.type === "variable_declarator")) {
        const source = requiredModule(declarator.childForFieldName("value"));
        const name = declarator.childForFieldName("name");
        if (!source || !name) continue;
        if (name.type === "identifier") bind(source.module, source.member ?? "default", name.text);
        if (name.type === "object_pattern")
          for (const p of name.namedChildren) {
            if (p.type === "shorthand_property_identifier_pattern") bind(source.module, p.text, p.text);
            if (p.type === "pair_pattern")
              bind(
                source.module,
                p.childForFieldName("key")?.text ?? "",
                p.childForFieldName("value")?.text ?? "",
              );
          }
      }
    }
  }
  return bindings;
}

/** `require("x")` → x; `require("x").strict` → x and the member. */
function requiredModule(value: Node | null): { module: string; member?: string } | null {
  if (!value) return null;
  if (value.type === "member_expression") {
    const inner = requiredModule(value.childForFieldName("object"));
    return inner && { module: inner.module, member: value.childForFieldName("property")?.text ?? "" };
  }
  if (value.type !== "call_expression" || value.childForFieldName("function")?.text !== "require")
    return null;
  const arg = argumentsOf(value)[0];
  const module = arg && decodeJsString(arg.text);
  return module ? { module } : null;
}

function collectAssertions(body: Node, fn: Node, prefix: string, first: number, bindings: Bindings): Found[] {
  const out: Found[] = [];
  const visit = (node: Node) => {
    const draft = assertionAt(node, fn, bindings);
    if (draft) {
      out.push({ ...draft, key: `${prefix}${first + out.length}` });
      return;
    }
    for (const child of node.namedChildren) visit(child);
  };
  visit(body);
  return out;
}

function assertionAt(node: Node, fn: Node, b: Bindings): Draft | null {
  if (node.type !== "call_expression" && node.type !== "member_expression") return null;
  // Visited from the outside in, so an `expect(...)` chain is seen whole before its parts.
  const chain = expectChain(node, b);
  if (chain) return chain;
  if (node.type !== "call_expression") return null;
  const callee = node.childForFieldName("function");
  if (!callee) return null;
  const args = argumentsOf(node);
  let method: string | null = null;
  if (callee.type === "identifier" && b.assert.has(callee.text)) method = "ok";
  else if (callee.type === "identifier" && b.methods.has(callee.text)) method = b.methods.get(callee.text)!;
  else if (callee.type === "member_expression") {
    const object = callee.childForFieldName("object");
    if (object?.type === "identifier" && b.assert.has(object.text))
      method = callee.childForFieldName("property")?.text ?? null;
    // `assert.strict.equal(...)`
    if (
      object?.type === "member_expression" &&
      b.assert.has(object.childForFieldName("object")?.text ?? "") &&
      object.childForFieldName("property")?.text === "strict"
    )
      method = callee.childForFieldName("property")?.text ?? null;
  }
  if (!method || args.some((a) => a.type === "spread_element")) return null;
  const span = spanOf(node);
  const awaits = (ns: readonly Node[]) => ns.some((n) => awaitsIn(n, fn));
  if (EQUAL_METHODS.has(method) && args.length >= 2)
    return equality(span, args[0]!, args[1]!, method, awaits);
  if (method in VALUE_METHODS && args.length >= 1)
    return draft(span, "value", [args[0]!], VALUE_METHODS[method]!, [args[0]!], awaits);
  if ((method === "throws" || method === "doesNotThrow") && args.length >= 1)
    return draft(span, "throws", args.slice(0, 2), method, [args[0]!], awaits);
  if ((method === "rejects" || method === "doesNotReject") && args.length >= 1)
    return draft(span, "settles", args.slice(0, 2), method, [args[0]!], () => false);
  if ((method === "match" || method === "doesNotMatch") && args.length >= 2)
    return draft(span, "operands", args.slice(0, 2), method, [args[0]!], awaits);
  return null;
}

/** An `expect(actual)…` chain ending at `node`, as an assertion. */
function expectChain(node: Node, b: Bindings): Draft | null {
  const words: string[] = [];
  let call: Node | null = null;
  let lastArgs: Node[] = [];
  let at: Node | null = node;
  while (at) {
    if (at.type === "call_expression") {
      const callee = at.childForFieldName("function");
      if (callee?.type === "identifier" && b.expect.has(callee.text)) {
        call = at;
        break;
      }
      if (words.length === 0) lastArgs = argumentsOf(at);
      at = callee;
      continue;
    }
    if (at.type === "member_expression") {
      words.unshift(at.childForFieldName("property")?.text ?? "");
      at = at.childForFieldName("object");
      continue;
    }
    return null;
  }
  if (!call || words.length === 0) return null;
  const args = argumentsOf(call);
  if (args.length < 1 || args[0]!.type === "spread_element") return null;
  const actual = args[0]!;
  const span = spanOf(node);
  const negated = words.includes("not");
  const fn = enclosingAny(node, FUNCTIONS);
  const awaits = (ns: readonly Node[]) => ns.some((n) => fn !== null && awaitsIn(n, fn));
  if (words.includes("resolves") || words.includes("rejects"))
    return draft(
      span,
      "settles",
      [actual],
      words.includes("rejects") ? "rejects" : "resolves",
      [actual],
      () => false,
    );
  const last = words.at(-1)!;
  if (words.some((w) => THROW_MATCHERS.has(w)))
    return draft(span, "throws", [actual, ...lastArgs.slice(0, 1)], "throws", [actual], awaits);
  if (last in EQUAL_MATCHERS && lastArgs.length >= 1)
    return equality(span, actual, lastArgs[0]!, `${negated ? "not." : ""}${last}`, awaits, false);
  if (CHAI_EQUAL.has(last) && lastArgs.length >= 1) {
    const deep = words.includes("deep") || last.startsWith("eql");
    return equality(
      span,
      actual,
      lastArgs[0]!,
      `${negated ? "not." : ""}${deep ? "deepStrictEqual" : "strictEqual"}`,
      awaits,
      false,
    );
  }
  return draft(span, "value", [actual], "matcher", [actual], awaits);
}

function equality(
  span: Span,
  left: Node,
  right: Node,
  operator: string,
  awaits: (ns: readonly Node[]) => boolean,
  swappable = true,
): Draft {
  const [actual, expected] =
    swappable && isConstant(left) && !isConstant(right) ? [right, left] : [left, right];
  return {
    ...draft(span, "equal", [actual, expected], operator, [actual], awaits),
    expected: spanOf(expected),
  };
}

function draft(
  span: Span,
  kind: TestAssertion["kind"],
  operands: readonly Node[],
  operator: string,
  inputs: readonly Node[],
  awaits: (ns: readonly Node[]) => boolean,
): Draft {
  return {
    kind,
    span,
    operands: operands.map(spanOf),
    operator,
    awaits: awaits(operands),
    inputs: inputs.map(spanOf),
  };
}

/** `expect.assertions(n)` and `expect.hasAssertions()`: dropped in probes, which count nothing. */
function expectCounts(body: Node, b: Bindings): Span[] {
  return body
    .descendantsOfType("call_expression")
    .filter((c) => {
      const callee = c.childForFieldName("function");
      const path = callee && calleePath(callee);
      return (
        path?.length === 2 &&
        b.expect.has(path[0]!) &&
        (path[1] === "assertions" || path[1] === "hasAssertions")
      );
    })
    .map(spanOf);
}

/** Whether `node` awaits in the scope of `fn` (not inside a function of its own). */
function awaitsIn(node: Node, fn: Node): boolean {
  const awaits = node.type === "await_expression" ? [node] : node.descendantsOfType("await_expression");
  return awaits.some((a) => {
    const owner = enclosingAny(a, FUNCTIONS);
    return owner !== null && owner.startIndex === fn.startIndex && owner.endIndex === fn.endIndex;
  });
}

// -------------------------------------------------------------------------------------------- literals

/** The literal nodes under `node` a perturbation may change (exclusions in the module comment). */
function literalNodes(node: Node, blocked: readonly Span[] = []): Node[] {
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
        if (!NAME_CALLS.has(name ?? "")) for (const a of argumentsOf(n)) visit(a);
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

function literalValue(node: Node): TestLiteral["value"] | null {
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

function isConstant(node: Node): boolean {
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

// ---------------------------------------------------------------------------------------------- tables

/** The names a test function's parameters bind, per position (object patterns by key). */
function parameterNames(fn: Node): (string | string[] | null)[] {
  const params = fn.childForFieldName("parameters") ?? fn.childForFieldName("parameter");
  if (!params) return [];
  const list = params.type === "formal_parameters" ? params.namedChildren : [params];
  return list.map((p) => {
    const pattern =
      p.type === "required_parameter" || p.type === "optional_parameter" ? p.childForFieldName("pattern") : p;
    if (!pattern) return null;
    if (pattern.type === "identifier") return pattern.text;
    if (pattern.type === "object_pattern")
      return pattern.namedChildren.map((c) =>
        c.type === "shorthand_property_identifier_pattern"
          ? c.text
          : (c.childForFieldName("key")?.text ?? ""),
      );
    return null;
  });
}

/** The columns of a `.each` row that are inputs. */
function rowColumns(
  row: Node,
  names: (string | string[] | null)[],
  onlyExpected: (n: string) => boolean,
): Node[] {
  if (row.type === "array") {
    const columns = row.namedChildren.filter((c) => c.type !== "comment");
    return columns.filter((_, i) => {
      const name = names[i];
      return !(typeof name === "string" && onlyExpected(name));
    });
  }
  if (row.type === "object" && Array.isArray(names[0])) {
    const keys = names[0];
    return row.namedChildren
      .filter((p) => p.type === "pair")
      .filter((p) => {
        const key = p.childForFieldName("key")?.text ?? "";
        return !(keys.includes(key) && onlyExpected(key));
      })
      .map((p) => p.childForFieldName("value")!);
  }
  if (names.length === 1 && typeof names[0] === "string" && onlyExpected(names[0])) return [];
  return [row];
}

/**
 * Tables a test loops over (`for (const [input, want] of [...])`, `[...].forEach(([a, b]) => …)`):
 * rows are cases, not collections to perturb; columns that only reach expected operands are not inputs.
 */
function loopTables(body: Node, onlyExpected: (name: string) => boolean): { tables: Span[]; inputs: Node[] } {
  const tables: Span[] = [];
  const inputs: Node[] = [];
  const take = (pattern: Node | null, table: Node | null) => {
    if (pattern?.type !== "array_pattern" || table?.type !== "array") return;
    const names = pattern.namedChildren.map((n) => (n.type === "identifier" ? n.text : ""));
    const rows = table.namedChildren.filter((c) => c.type !== "comment");
    if (
      !rows.every(
        (r) =>
          r.type === "array" && r.namedChildren.filter((c) => c.type !== "comment").length === names.length,
      )
    )
      return;
    tables.push(spanOf(table));
    for (const row of rows)
      row.namedChildren
        .filter((c) => c.type !== "comment")
        .forEach((column, i) => {
          if (names[i] && !onlyExpected(names[i]!)) inputs.push(...literalNodes(column));
        });
  };
  for (const loop of body.descendantsOfType("for_in_statement"))
    take(loop.childForFieldName("left"), loop.childForFieldName("right"));
  for (const call of body.descendantsOfType("call_expression")) {
    const callee = call.childForFieldName("function");
    if (callee?.type !== "member_expression" || callee.childForFieldName("property")?.text !== "forEach")
      continue;
    const fn = argumentsOf(call)[0];
    const first =
      fn && (fn.childForFieldName("parameters")?.namedChildren[0] ?? fn.childForFieldName("parameter"));
    const pattern =
      first?.type === "required_parameter" ? first.childForFieldName("pattern") : (first ?? null);
    take(pattern, callee.childForFieldName("object"));
  }
  return { tables, inputs };
}

/** Whether every use of `name` in `body` lies in one of `spans`; a loop's own pattern binds, it does not use. */
function referencesOnlyIn(body: Node, name: string, spans: readonly Span[]): boolean {
  const patterns = body
    .descendantsOfType(["array_pattern", "object_pattern", "formal_parameters"])
    .map((p) => ({ start: p.startIndex, end: p.endIndex }));
  const uses = body
    .descendantsOfType(["identifier", "shorthand_property_identifier"])
    .filter((n) => n.text === name && !patterns.some((p) => n.startIndex >= p.start && n.endIndex <= p.end));
  return (
    uses.length > 0 && uses.every((u) => spans.some((s) => u.startIndex >= s.start && u.endIndex <= s.end))
  );
}

// ------------------------------------------------------------------------------------------------ misc

function argumentsOf(call: Node): Node[] {
  const args = call.childForFieldName("arguments");
  if (args?.type !== "arguments") return [];
  return args.namedChildren.filter((c) => c.type !== "comment");
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

function enclosingAny(node: Node, types: ReadonlySet<string>): Node | null {
  for (let p = node.parent; p; p = p.parent) if (types.has(p.type)) return p;
  return null;
}

function spanOf(node: Node): Span {
  return { start: node.startIndex, end: node.endIndex };
}
