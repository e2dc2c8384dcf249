import { posix } from "node:path";
import type { Node } from "web-tree-sitter";
import { loadSyntax } from "../grade/static/syntax.ts";
import { probeAdapter } from "./adapters.ts";
import { type ProbeRun, slotKey } from "./channel.ts";
import { analyseJs } from "./js/analyse.ts";
import { type ProbePlan, planProbes } from "./plan.ts";
import { analysePython } from "./python/analyse.ts";
import { baseProbeId } from "./types.ts";

/**
 * A reviewer's probe (the agent grader's `run_probe`, docs/grader-protocol.md): a short piece of code
 * in the task's language, written as the body of one test in a module beside the task's hidden
 * tests, and planned like any test module (plan.ts), so its assertions become observations and its
 * end (returned, or the exception's type) is recorded on the same channel the behavioural probes use.
 * A lone expression is observed as `assert (expression)`: its value comes back, whatever it is.
 */

/** Runners whose snippet module we know how to write (jest and vitest need their own config to pick a new file up). */
const SNIPPET_RUNNERS = new Set(["pytest", "node:test", "mocha"]);
export const MAX_SNIPPET_CHARS = 4000;
const TEST_NAME = "gagar_run_probe";

export interface SnippetPlan {
  /** Where the snippet's module sits in the workspace. */
  path: string;
  probe: ProbePlan;
  /** The base probe's id: the observations to read. */
  probeId: string;
  /** When the code ended in an expression: the key of the assertion that observes its value. */
  observedKey?: string;
}

export class SnippetError extends Error {
  override readonly name = "SnippetError";
}

export function snippetRunnerSupported(runner: string): boolean {
  return SNIPPET_RUNNERS.has(runner) && probeAdapter(runner) !== undefined;
}

/**
 * The probe plan of `code` for `runner`, its module placed in `dir` (the directory of a hidden test
 * module, so the task's imports, conftest and package settings apply). Throws SnippetError for code a
 * model must fix (empty, too long, not parseable as statements of the language).
 */
export async function planSnippet(runner: string, dir: string, code: string): Promise<SnippetPlan> {
  if (!snippetRunnerSupported(runner))
    throw new SnippetError(`run_probe does not support the ${runner} runner`);
  if (code.trim() === "") throw new SnippetError("code is empty: send an expression or a few statements");
  if (code.length > MAX_SNIPPET_CHARS)
    throw new SnippetError(`code is ${code.length} characters; at most ${MAX_SNIPPET_CHARS}`);
  const syntax = await loadSyntax();
  const python = runner === "pytest";
  // A Python snippet pasted from inside a test is indented; as a module it would not parse.
  const source = python ? dedent(code) : code;
  const shape = syntax.withTree(python ? "python" : "javascript", source, (root) =>
    shapeOf(root, source, !python),
  );
  if (shape.error)
    throw new SnippetError(`code does not parse as ${python ? "Python" : "JavaScript"}: ${shape.error}`);
  const path = posix.join(dir, python ? `test_${TEST_NAME}.py` : `${TEST_NAME}.test.mjs`);
  const module = python ? pythonModule(shape) : jsModule(runner, shape);
  const probe = await planProbes({ runner, tests: new Map([[path, module]]), maxProbesPerTest: 0 });
  const base = probe.probes[0];
  if (!base || probe.testFiles.length !== 1)
    throw new SnippetError(probe.skipped[0]?.reason ?? "the code gives no test to run");
  // The observed expression is the test's last assertion: its key is where its value comes back.
  const adapter = probeAdapter(runner)!;
  const site = syntax.withTree(python ? "python" : "javascript", module, (root) =>
    python ? analysePython(root, path, module) : analyseJs(root, path, module, adapter),
  ).tests[0];
  const observedKey = shape.expression ? site?.assertions.at(-1)?.key : undefined;
  return { path, probe, probeId: baseProbeId(base.testId), ...(observedKey && { observedKey }) };
}

interface Shape {
  error?: string;
  expression: boolean;
  /** Top-level imports (hoisted in an ES module) and the rest of the body. */
  imports: string[];
  body: string;
}

/** `hoist`: an ES module's imports must be top-level, so they are taken out of the test body. */
function shapeOf(root: Node, code: string, hoist: boolean): Shape {
  if (root.hasError) {
    const bad = firstError(root);
    return { error: `line ${(bad?.startPosition.row ?? 0) + 1}`, expression: false, imports: [], body: "" };
  }
  const statements = root.namedChildren.filter((n): n is Node => n !== null && n.type !== "comment");
  const imports = hoist ? statements.filter((s) => s.type === "import_statement") : [];
  const kept = statements.filter((s) => !imports.includes(s));
  if (kept.length === 0) return { expression: false, imports: imports.map((s) => s.text), body: "" };
  // The last statement, when it is an expression that is not itself an assertion, is what is observed.
  const last = kept[kept.length - 1]!;
  const observed = observable(last);
  const start = kept[0]!.startIndex;
  let body = observed
    ? `${code.slice(start, last.startIndex)}${OBSERVE_MARK}${last.text.replace(/;\s*$/, "")}${OBSERVE_END}`
    : code.slice(start);
  for (const s of imports) if (s.startIndex >= start) body = body.replace(s.text, "");
  return { expression: observed, imports: imports.map((s) => s.text), body };
}

const OBSERVE_MARK = "\u0000observe(";
const OBSERVE_END = ")\u0000";

function observable(statement: Node): boolean {
  if (statement.type !== "expression_statement") return false;
  const inner = statement.namedChild(0);
  if (!inner) return false;
  if (ASSIGNMENTS.has(inner.type)) return false;
  const callee = inner.type === "call_expression" ? (inner.childForFieldName("function")?.text ?? "") : "";
  return !/^(assert|expect)\b/.test(callee);
}

const ASSIGNMENTS = new Set([
  "assignment",
  "augmented_assignment",
  "assignment_expression",
  "augmented_assignment_expression",
]);

function firstError(node: Node): Node | null {
  if (node.type === "ERROR" || node.isMissing) return node;
  for (const child of node.children) {
    if (!child) continue;
    const found = child.hasError || child.isMissing ? firstError(child) : null;
    if (found) return found;
  }
  return null;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

function pythonModule(shape: Shape): string {
  const body = observe(shape.body, (e) => `assert (${e})`);
  return `def test_${TEST_NAME}():\n${indent(dedent(body.trim() ? body : "pass"))}\n`;
}

function jsModule(runner: string, shape: Shape): string {
  const body = observe(shape.body, (e) => `assert.ok((${e}));`);
  const header = [
    'import assert from "node:assert";',
    ...(runner === "node:test" ? ['import { test } from "node:test";'] : []),
    ...shape.imports,
  ];
  const define = runner === "node:test" ? "test" : "it";
  return `${header.join("\n")}\n\n${define}("${TEST_NAME}", async () => {\n${indent(body)}\n});\n`;
}

/** The observed expression, written as the language's assertion of it (which the probe records). */
function observe(body: string, wrap: (expression: string) => string): string {
  const at = body.indexOf(OBSERVE_MARK);
  if (at < 0) return body;
  const end = body.lastIndexOf(OBSERVE_END);
  return (
    body.slice(0, at) + wrap(body.slice(at + OBSERVE_MARK.length, end)) + body.slice(end + OBSERVE_END.length)
  );
}

/** Python bodies must not start indented; a snippet pasted from an indented test often does. */
function dedent(text: string): string {
  const lines = text.split("\n");
  const widths = lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length);
  const cut = widths.length ? Math.min(...widths) : 0;
  return lines.map((l) => l.slice(cut)).join("\n");
}

/** What one run of a snippet produced: its observations in order, and how it ended. */
export interface SnippetResult {
  observations: { slot: string; value: unknown; expected?: unknown; held: boolean | null }[];
  /** The last expression's value, when the code ended in one (its assertion is the module's last). */
  value?: unknown;
  end: unknown;
}

export function snippetResult(plan: SnippetPlan, run: ProbeRun): SnippetResult {
  const observations: SnippetResult["observations"] = [];
  let end: unknown;
  for (const o of run.observations.values()) {
    if (o.probe !== plan.probeId) continue;
    if (o.slot === "end") end = o.value;
    else observations.push({ slot: o.slot, value: o.value, expected: o.expected, held: o.held });
  }
  observations.sort((a, b) => slotOrder(a.slot) - slotOrder(b.slot) || a.slot.localeCompare(b.slot));
  const result: SnippetResult = {
    observations,
    end: end ?? run.observations.get(slotKey(plan.probeId, "", "end"))?.value,
  };
  if (plan.observedKey) {
    const at = observations.findIndex((o) => o.slot === `${plan.observedKey}#0`);
    if (at >= 0) result.value = observations.splice(at, 1)[0]!.value;
  }
  return result;
}

function slotOrder(slot: string): number {
  const m = /^a(\d+)#(\d+)$/.exec(slot);
  return m ? Number(m[1]) * 1000 + Number(m[2]) : Number.MAX_SAFE_INTEGER;
}
