import type { Node } from "web-tree-sitter";
import type { CodeFacts, DefinitionFact, Row } from "./code-facts.ts";
import type { SyntaxLanguage } from "./languages.ts";
import { walkNamed } from "./syntax.ts";

/**
 * Code facts from tree-sitter trees of a hunk's new side (Python, JavaScript, TypeScript): comments
 * as the parser sees them (never a `#` inside a string), definitions with their scope, and branches
 * that compare against a literal and return one.
 */

/** Node types any fact can start at; everything else is only walked through. */
const FACT_NODES = new Set([
  "comment",
  "function_definition",
  "class_definition",
  "if_statement",
  "elif_clause",
  "conditional_expression",
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "abstract_class_declaration",
  "variable_declarator",
  "method_definition",
  "ternary_expression",
  "switch_case",
]);

/**
 * Walks the tree with a cursor (no Node objects for the many uninteresting nodes) and skips every
 * subtree that spans no added row: facts are only about what the patch adds.
 */
export function collectSyntax(root: Node, language: SyntaxLanguage, rows: Row[], facts: CodeFacts): void {
  const addedUpTo = [0];
  for (const row of rows) addedUpTo.push(addedUpTo.at(-1)! + (row.added ? 1 : 0));
  const spansAdded = (start: number, end: number) =>
    addedUpTo[Math.min(end + 1, rows.length)]! - addedUpTo[start]! > 0;
  const cursor = root.walk();
  try {
    for (;;) {
      const relevant = spansAdded(cursor.startPosition.row, cursor.endPosition.row);
      if (relevant && cursor.nodeIsNamed && FACT_NODES.has(cursor.nodeType)) {
        collectNode(cursor.currentNode, language === "python", rows, facts);
      }
      if (relevant && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return;
    }
  } finally {
    cursor.delete();
  }
}

function collectNode(node: Node, python: boolean, rows: Row[], facts: CodeFacts): void {
  const added = (n: Node) => rows[n.startPosition.row]?.added === true;
  const lineOf = (n: Node) => rows[n.startPosition.row]!.newLine;
  if (node.type === "comment") {
    if (!added(node)) return;
    const row = rows[node.startPosition.row]!;
    const ownLine = row.text.slice(0, node.startPosition.column).trim() === "";
    const doc = /^(\/\*\*|\/\/\/)/.test(node.text);
    facts.comments.push({ text: stripCommentMarkers(node.text, python), newLine: row.newLine, ownLine, doc });
    return;
  }
  const definition = python ? pythonDefinition(node, rows) : jsDefinition(node, rows);
  if (definition) {
    if (added(definition.nameNode))
      facts.definitions.push({ ...definition.fact, newLine: lineOf(definition.nameNode) });
    return;
  }
  const branch = python ? pythonBranch(node) : jsBranch(node);
  if (!branch || !added(branch.condition) || !added(branch.result)) return;
  const comparison = literalComparison(branch.condition, python);
  if (!comparison) return;
  const returned = literalValue(branch.result, python);
  facts.branches.push({
    newLine: lineOf(branch.condition),
    subject: comparison.subject,
    compared: comparison.values,
    returned: returned === null ? null : branch.result.text,
    returnedValues: returned ?? [],
  });
}

function stripCommentMarkers(text: string, python: boolean): string {
  if (python) return text.replace(/^#+\s?/, "");
  if (text.startsWith("//")) return text.replace(/^\/\/+\s?/, "");
  return text
    .replace(/^\/\*+/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((l) => l.replace(/^\s*\*\s?/, ""))
    .join("\n")
    .trim();
}

function indentOf(rows: Row[], node: Node): number {
  const text = rows[node.startPosition.row]?.text ?? "";
  return text.length - text.trimStart().length;
}

function pythonDefinition(
  node: Node,
  rows: Row[],
): { nameNode: Node; fact: Omit<DefinitionFact, "newLine"> } | null {
  if (node.type !== "function_definition" && node.type !== "class_definition") return null;
  const nameNode = node.childForFieldName("name");
  if (!nameNode) return null;
  let container: DefinitionFact["container"] = "module";
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === "class_definition") {
      container = "class";
      break;
    }
    if (p.type === "function_definition") {
      container = "function";
      break;
    }
  }
  if (container === "module" && indentOf(rows, node) > 0) container = "unknown";
  return {
    nameNode,
    fact: {
      name: nameNode.text,
      kind: node.type === "class_definition" ? "class" : "function",
      container,
      external: node.parent?.type === "decorated_definition",
      private: /^_(?!_\w*__$)/.test(nameNode.text),
    },
  };
}

const JS_FUNCTION_VALUES = new Set([
  "arrow_function",
  "function_expression",
  "function",
  "class",
  "generator_function",
]);

function jsDefinition(
  node: Node,
  rows: Row[],
): { nameNode: Node; fact: Omit<DefinitionFact, "newLine"> } | null {
  let nameNode: Node | null = null;
  let kind: DefinitionFact["kind"] = "function";
  let container: DefinitionFact["container"] = "module";
  if (node.type === "function_declaration" || node.type === "generator_function_declaration") {
    nameNode = node.childForFieldName("name");
  } else if (node.type === "class_declaration" || node.type === "abstract_class_declaration") {
    nameNode = node.childForFieldName("name");
    kind = "class";
  } else if (node.type === "variable_declarator") {
    const value = node.childForFieldName("value");
    const name = node.childForFieldName("name");
    if (value && JS_FUNCTION_VALUES.has(value.type) && name?.type === "identifier") nameNode = name;
    if (value?.type === "class") kind = "class";
  } else if (node.type === "method_definition") {
    nameNode = node.childForFieldName("name");
    container = "class";
  }
  if (!nameNode) return null;
  let external = false;
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === "export_statement") external = true;
    if (
      container === "module" &&
      /^(function_declaration|function_expression|arrow_function|method_definition)$/.test(p.type)
    ) {
      container = "function";
    }
  }
  const isPrivate = nameNode.type === "private_property_identifier" || nameNode.text.startsWith("_");
  if (container === "module" && node.type === "function_declaration" && indentOf(rows, node) > 0)
    container = "unknown";
  return {
    nameNode,
    fact: { name: nameNode.text.replace(/^#/, ""), kind, container, external, private: isPrivate },
  };
}

function pythonBranch(node: Node): { condition: Node; result: Node } | null {
  if (node.type === "if_statement" || node.type === "elif_clause") {
    const condition = node.childForFieldName("condition");
    const consequence = node.childForFieldName("consequence");
    const first = consequence?.namedChildren[0];
    if (condition && first?.type === "return_statement" && first.namedChildren[0]) {
      return { condition, result: first.namedChildren[0] };
    }
    return null;
  }
  if (node.type === "conditional_expression") {
    const [result, condition] = node.namedChildren;
    return result && condition ? { condition, result } : null;
  }
  return null;
}

function jsBranch(node: Node): { condition: Node; result: Node } | null {
  if (node.type === "if_statement") {
    let condition = node.childForFieldName("condition");
    if (condition?.type === "parenthesized_expression") condition = condition.namedChildren[0] ?? null;
    let consequence = node.childForFieldName("consequence");
    if (consequence?.type === "statement_block") consequence = consequence.namedChildren[0] ?? null;
    const value = consequence?.type === "return_statement" ? consequence.namedChildren[0] : null;
    return condition && value ? { condition, result: value } : null;
  }
  if (node.type === "ternary_expression") {
    const condition = node.childForFieldName("condition");
    const consequence = node.childForFieldName("consequence");
    return condition && consequence ? { condition, result: consequence } : null;
  }
  if (node.type === "switch_case") {
    const value = node.childForFieldName("value");
    const first = node.childForFieldName("body");
    const returned = first?.type === "return_statement" ? first.namedChildren[0] : null;
    return value && returned ? { condition: value, result: returned } : null;
  }
  return null;
}

const EQUALITY = new Set(["==", "===", "in", "is"]);

/** `subject == literal` (either side), `subject in (literals…)`, or a bare switch-case literal. */
function literalComparison(condition: Node, python: boolean): { subject: string; values: string[] } | null {
  if (condition.parent?.type === "switch_case") {
    const value = literalValue(condition, python);
    const subject = condition.parent.parent?.parent?.childForFieldName("value")?.text ?? "switch";
    return value ? { subject: subject.replace(/^\(|\)$/g, ""), values: value } : null;
  }
  for (const node of walkNamed(condition)) {
    const isComparison = python ? node.type === "comparison_operator" : node.type === "binary_expression";
    if (!isComparison || node.namedChildren.length !== 2) continue;
    const operator = node.children.find((c) => c && !c.isNamed)?.type ?? "";
    if (!EQUALITY.has(operator)) continue;
    const [left, right] = node.namedChildren as [Node, Node];
    const rightValue = literalValue(right, python);
    const leftValue = literalValue(left, python);
    if (rightValue && !leftValue) return { subject: left.text, values: rightValue };
    if (leftValue && !rightValue && operator !== "in") return { subject: right.text, values: leftValue };
  }
  return null;
}

const SCALAR_TYPES = new Set([
  "string",
  "integer",
  "float",
  "number",
  "template_string",
  "concatenated_string",
]);
const COLLECTION_TYPES = new Set(["tuple", "list", "set", "array", "dictionary", "object", "pair"]);

/**
 * The literal values of a literal expression (a string's contents, a number's text; every element of
 * a collection), or null when any part is computed. Booleans and null/None are not literals here:
 * returning them is a predicate, not a hard-coded answer.
 */
function literalValue(node: Node, python: boolean): string[] | null {
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
