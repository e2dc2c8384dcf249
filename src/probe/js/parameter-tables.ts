import type { Node } from "web-tree-sitter";
import type { Span } from "../types.ts";
import { literalNodes } from "./input-literals.ts";
import { argumentsOf, spanOf } from "./syntax-nodes.ts";

// The parameter tables of JavaScript tests: `.each` rows and loops over literal rows.

/** The names a test function's parameters bind, per position (object patterns by key). */
export function parameterNames(fn: Node): (string | string[] | null)[] {
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
export function rowColumns(
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
export function loopTables(
  body: Node,
  onlyExpected: (name: string) => boolean,
): { tables: Span[]; inputs: Node[] } {
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
export function referencesOnlyIn(body: Node, name: string, spans: readonly Span[]): boolean {
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
