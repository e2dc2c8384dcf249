import type { Node } from "web-tree-sitter";
import type { CodeFacts, CollectionFact, DefinitionFact, FactScope, Row } from "./code-facts.ts";
import type { SyntaxLanguage } from "./languages.ts";
import { COLLECTION_TYPES, literalTests, literalValue } from "./literal-tests.ts";

/**
 * Code facts from tree-sitter trees of a hunk's new side (Python, JavaScript, TypeScript): comments
 * as the parser sees them (never a `#` inside a string), definitions with their scope, branches whose
 * condition tests against literals (with the literal they return or assign), and literal collections.
 */

/** Branches whose condition may test against literals. */
const BRANCH_NODES = [
  "if_statement",
  "elif_clause",
  "conditional_expression",
  "ternary_expression",
  "switch_case",
];
/** Literal collections a table fact can come from. */
const TABLE_NODES = ["dictionary", "set", "list", "tuple", "object", "array"];

/** Node types any fact can start at; everything else is only walked through. */
const FACT_NODES = new Set([
  "comment",
  "function_definition",
  "class_definition",
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "abstract_class_declaration",
  "variable_declarator",
  "method_definition",
  ...BRANCH_NODES,
  ...TABLE_NODES,
]);

/** Branch and collection nodes: facts about them need a literal in their text. */
const LITERAL_FACT_NODES = new Set([...BRANCH_NODES, ...TABLE_NODES]);
/** A quote or a digit: the start of a string or number literal (identifier keys of `{a: 1}` come with values). */
const LITERAL_TEXT = /["'`\d]/;

/**
 * Facts are only about what the patch adds: nodes that span an added row. Tree-sitter itself walks
 * the tree and hands back only nodes of the types a fact can start at (every node visited from
 * JavaScript, or queried, costs a call into wasm); each is then judged from its rows first.
 */
export function collectSyntax(
  root: Node,
  language: SyntaxLanguage,
  rows: Row[],
  facts: CodeFacts,
  scope: FactScope = "all",
): void {
  const addedUpTo = [0];
  for (const row of rows) addedUpTo.push(addedUpTo.at(-1)! + (row.added ? 1 : 0));
  const addedIn = (start: number, end: number) =>
    addedUpTo[Math.min(end + 1, rows.length)]! - addedUpTo[Math.min(start, rows.length)]!;
  const hasLiteral = (start: number, end: number) => {
    for (let r = start; r <= end && r < rows.length; r++) if (LITERAL_TEXT.test(rows[r]!.text)) return true;
    return false;
  };
  let lastAdded = rows.length - 1;
  while (lastAdded >= 0 && !rows[lastAdded]!.added) lastAdded--;
  if (lastAdded < 0) return;
  const firstAdded = rows.findIndex((r) => r.added);
  // The walk skips what ends by the first added row (at most a zero-width token on it, so no fact can
  // start there) and stops at the first node that starts after the last one.
  const types = scope === "branches" ? BRANCH_NODES : FACT_TYPES;
  const from = { row: firstAdded, column: 0 };
  for (const node of root.descendantsOfType(types, from, { row: lastAdded + 1, column: 0 })) {
    if (!node) continue;
    const type = node.type;
    const start = node.startPosition.row;
    // A node whose first row is added spans an added row; only tests and tables look further.
    const end = LITERAL_FACT_NODES.has(type) || !rows[start]?.added ? node.endPosition.row : start;
    if (addedIn(start, end) === 0) continue;
    // Decided from rows before asking more of the node: a collection counts only when the patch
    // adds all of it, and tests and tables need a literal somewhere in them.
    const wanted =
      (!LITERAL_FACT_NODES.has(type) || hasLiteral(start, end)) &&
      (!COLLECTION_TYPES.has(type) || addedIn(start, end) === end - start + 1);
    if (wanted && node.isNamed) collectNode(node, type, language === "python", rows, facts);
  }
}

const FACT_TYPES = [...FACT_NODES];

/** `type` is the node's (the caller has it: each ask is a call into wasm). */
function collectNode(node: Node, type: string, python: boolean, rows: Row[], facts: CodeFacts): void {
  if (type === "comment") {
    if (!addedAt(rows, node)) return;
    const row = rows[node.startPosition.row]!;
    const ownLine = row.text.slice(0, node.startPosition.column).trim() === "";
    const text = node.text;
    const doc = /^(\/\*\*|\/\/\/)/.test(text);
    facts.comments.push({ text: stripCommentMarkers(text, python), newLine: row.newLine, ownLine, doc });
    return;
  }
  const definition = python ? pythonDefinition(node, rows) : jsDefinition(node, rows);
  if (definition) {
    if (addedAt(rows, definition.nameNode))
      facts.definitions.push({ ...definition.fact, newLine: lineAt(rows, definition.nameNode) });
    return;
  }
  if (COLLECTION_TYPES.has(type)) {
    const collection = collectionFact(node, python, rows);
    if (collection) facts.collections.push(collection);
    return;
  }
  const branch = python ? pythonBranch(node) : jsBranch(node);
  if (!branch || !addedAt(rows, branch.condition)) return;
  const tests = literalTests(branch.condition, python);
  if (tests.length === 0) return;
  const result = branch.result && addedAt(rows, branch.result) ? branch.result : null;
  const returned = result && branch.returns ? literalValue(result, python) : null;
  facts.branches.push({
    newLine: lineAt(rows, branch.condition),
    tests,
    returned: returned === null ? null : result!.text,
    yielded: (result && literalValue(result, python)) ?? [],
  });
}

/** Whether the row a node starts on is added. */
function addedAt(rows: Row[], n: Node): boolean {
  return rows[n.startPosition.row]?.added === true;
}

function lineAt(rows: Row[], n: Node): number {
  return rows[n.startPosition.row]!.newLine;
}

/**
 * A literal collection whose entries the patch adds (collectSyntax checks that every row it spans is
 * added), outside any other
 * collection and not an operand of a test (`x in (…)` is a test, not a table).
 */
function collectionFact(node: Node, python: boolean, rows: Row[]): CollectionFact | null {
  for (let p = node.parent; p; p = p.parent) {
    if (COLLECTION_TYPES.has(p.type) || p.type === "pair" || TEST_OPERANDS.has(p.type)) return null;
    if (/statement|declaration|definition|declarator|^arguments$|^argument_list$/.test(p.type)) break;
  }
  const keys: string[] = [];
  const values: string[] = [];
  for (const child of node.namedChildren) {
    if (!child || child.type === "comment") continue;
    if (child.type === "pair") {
      const key = child.childForFieldName("key");
      const value = child.childForFieldName("value");
      const k = key && (key.type === "property_identifier" ? [key.text] : literalValue(key, python));
      if (k) keys.push(...k);
      const v = value && literalValue(value, python);
      if (v) values.push(...v);
    } else {
      const v = literalValue(child, python);
      if (v) values.push(...v);
    }
  }
  if (keys.length + values.length < 2) return null;
  return { newLine: rows[node.startPosition.row]!.newLine, keys, values };
}

const TEST_OPERANDS = new Set(["comparison_operator", "binary_expression", "member_expression"]);

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

interface BranchShape {
  condition: Node;
  /** What the branch yields: the value of its first `return`, of its first assignment, or the ternary's value. */
  result: Node | null;
  /** Whether `result` is returned (as opposed to assigned). */
  returns: boolean;
}

/** The value a branch's first statement returns or assigns. */
function firstYield(
  statement: Node | null | undefined,
  python: boolean,
): Pick<BranchShape, "result" | "returns"> {
  if (!statement) return { result: null, returns: false };
  if (statement.type === "return_statement")
    return { result: statement.namedChildren[0] ?? null, returns: true };
  if (statement.type === "expression_statement") {
    const expression = statement.namedChildren[0];
    const assignment = python ? "assignment" : "assignment_expression";
    if (expression?.type === assignment)
      return { result: expression.childForFieldName("right"), returns: false };
  }
  return { result: null, returns: false };
}

function pythonBranch(node: Node): BranchShape | null {
  if (node.type === "if_statement" || node.type === "elif_clause") {
    const condition = node.childForFieldName("condition");
    const consequence = node.childForFieldName("consequence");
    return condition ? { condition, ...firstYield(consequence?.namedChildren[0], true) } : null;
  }
  if (node.type === "conditional_expression") {
    const [result, condition] = node.namedChildren;
    return result && condition ? { condition, result, returns: true } : null;
  }
  return null;
}

function jsBranch(node: Node): BranchShape | null {
  if (node.type === "if_statement") {
    let condition = node.childForFieldName("condition");
    if (condition?.type === "parenthesized_expression") condition = condition.namedChildren[0] ?? null;
    let consequence = node.childForFieldName("consequence");
    if (consequence?.type === "statement_block") consequence = consequence.namedChildren[0] ?? null;
    return condition ? { condition, ...firstYield(consequence, false) } : null;
  }
  if (node.type === "ternary_expression") {
    const condition = node.childForFieldName("condition");
    const consequence = node.childForFieldName("consequence");
    return condition && consequence ? { condition, result: consequence, returns: true } : null;
  }
  if (node.type === "switch_case") {
    const value = node.childForFieldName("value");
    return value ? { condition: value, ...firstYield(node.childForFieldName("body"), false) } : null;
  }
  return null;
}
