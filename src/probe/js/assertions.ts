import type { Node } from "web-tree-sitter";
import type { Span, TestAssertion } from "../types.ts";
import { isConstant } from "./input-literals.ts";
import { decodeJsString } from "./literals.ts";
import { argumentsOf, calleePath, enclosingAny, FUNCTIONS, spanOf } from "./syntax-nodes.ts";

// The assertions of a JavaScript test body that probes turn into observations (which ones: analyse.ts).

const ASSERT_MODULES = new Set(["assert", "node:assert", "assert/strict", "node:assert/strict", "chai"]);
const EXPECT_MODULES = new Set(["vitest", "@jest/globals", "chai", "expect"]);
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

export type Found = TestAssertion & { inputs: Span[] };
type Draft = Omit<Found, "key">;

export interface Bindings {
  /** Names bound to node:assert or chai's assert (called as `assert(x)` and `assert.method(...)`). */
  assert: Set<string>;
  /** Names bound to single assert methods (`const { strictEqual } = require("assert")`). */
  methods: Map<string, string>;
  expect: Set<string>;
}

export function bindingsOf(root: Node): Bindings {
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

export function collectAssertions(
  body: Node,
  fn: Node,
  prefix: string,
  first: number,
  bindings: Bindings,
): Found[] {
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
export function expectCounts(body: Node, b: Bindings): Span[] {
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
