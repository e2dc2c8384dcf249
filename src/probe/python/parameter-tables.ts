import type { Node } from "web-tree-sitter";
import type { ParameterTable, Span } from "../types.ts";
import { literalNodes } from "./input-literals.ts";
import { decodePythonString } from "./literals.ts";
import { argumentsOf, spanOf } from "./syntax-nodes.ts";

// The parameter tables of Python tests: `@pytest.mark.parametrize` rows and loops over literal rows.

interface Parametrize {
  table: ParameterTable;
  names: string[];
  /** Per row, the node of each column (empty when the row is not a display). */
  columns: Node[][];
}

export function parametrizeTable(decorator: Node): Parametrize | null {
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
export function loopTableRows(
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
export function referencesOnlyIn(body: Node, name: string, spans: readonly Span[]): boolean {
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
