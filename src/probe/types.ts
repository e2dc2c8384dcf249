/**
 * The model behavioural probes are built on: what a parser found in a test module (tests, their
 * literal inputs, their assertions), and the probes made from it. Positions are UTF-16 offsets into
 * the module's text, as tree-sitter reports them for a JavaScript string.
 */

export interface Span {
  start: number;
  end: number;
}

/** A literal input of a test: what a perturbation changes. */
export type LiteralValue =
  | {
      kind: "number";
      /** The exact value of an integer literal; null for a float. */
      integer: bigint | null;
      value: number;
      /** Digits after the decimal point, and the exponent (`1.5e3`: 1 and 3), which set a float's step. */
      decimals: number;
      exponent: number | null;
      /** A JavaScript BigInt literal (`10n`). */
      bigint: boolean;
    }
  | { kind: "string"; value: string; bytes: boolean }
  | { kind: "boolean"; value: boolean }
  | { kind: "collection"; elements: Span[]; open: string; close: string };

export interface TestLiteral {
  /** Ordinal within its test, in source order: the `L<n>` of perturbation ids. */
  index: number;
  span: Span;
  /** 1-based line of the literal in its module. */
  line: number;
  value: LiteralValue;
  /**
   * When the literal is in a row of a parametrized test's table (pytest.mark.parametrize, jest/vitest
   * `.each`): that table and the row, so a probe runs only the perturbed row.
   */
  row?: { table: number; row: number };
}

/**
 * What an assertion checks, which decides what its observation records:
 * - `equal`: the actual operand's value, and the expected operand's (for the second verdict channel);
 * - `value`: the value of the checked expression (truthiness checks, matchers without an expected
 *   value the probe can judge);
 * - `operands`: the values of a comparison's operands that are not constants (`<`, `in`, `is`…);
 * - `throws`: what calling a function does: the exception's type, or the value it returned;
 * - `settles`: the same for a promise or an async function (awaited);
 * - `raises-block` / `warns-block`: a `with pytest.raises(...)` / `pytest.warns(...)` block.
 */
export type AssertionKind =
  | "equal"
  | "value"
  | "operands"
  | "throws"
  | "settles"
  | "raises-block"
  | "warns-block";

/** An assertion found in a test, rewritten into an observation in every probe. */
export interface TestAssertion {
  /** `a<n>` within a test (`h<n>` in a helper outside tests): the observation's key. */
  key: string;
  kind: AssertionKind;
  /** The text replaced by the observation call. */
  span: Span;
  /** Operands the observation evaluates, in the order the observation call takes them. */
  operands: Span[];
  /** The operand holding the expected value (`equal`), never perturbed. */
  expected?: Span;
  /**
   * How the assertion decides (`==`, `strictEqual`, `toEqual`…): the probe evaluates it itself on the
   * recorded operands, so that a run where the assertion library was silenced still shows whether it held.
   */
  operator: string;
  /** Whether an operand awaits (the observation is then awaited). */
  awaits: boolean;
}

/** A table of a parametrized test: its rows, and the text around them to rebuild it with one row. */
export interface ParameterTable {
  span: Span;
  rows: Span[];
  /** Extra arguments to drop when the table is cut to one row (pytest's `ids=[...]`). */
  drop: Span[];
  /** How many parameters a row binds (pytest's argnames). */
  width: number;
}

/** One test as declared in a module. */
export interface TestSite {
  /** The task-style test id (`tests/test_x.py::TestK::test_m`, `test/x.test.js::suite > name`). */
  id: string;
  /** Whether the id is known before running (a title built at run time is not). */
  staticId: boolean;
  /** 1-based line of the declaration. */
  line: number;
  /** The whole declaration, decorators or call included: replaced by the test's probes. */
  span: Span;
  literals: TestLiteral[];
  assertions: TestAssertion[];
  tables: ParameterTable[];
  /** Language-specific anchors the renderer needs (name to rename, function to wrap…). */
  anchors: Record<string, Span>;
  /** Whether the test function is async (Python `async def`). */
  async: boolean;
}

/** What the analysis of one module found. */
export interface TestModule {
  file: string;
  text: string;
  tests: TestSite[];
  /** Assertions in functions that are not tests (helpers, fixtures, hooks): observed, never perturbed. */
  helperAssertions: TestAssertion[];
  /** Where the probe helper is brought in (after a docstring, `from __future__`, "use strict"). */
  preambleEnd: number;
  /** JavaScript: whether the module is an ES module (import/export) rather than CommonJS. */
  esm: boolean;
}

/**
 * A perturbation of one literal. `neighbour` inputs are one step from a tested input (a number ±1 or
 * ±2, one character substituted, inserted or deleted within its class, one element dropped, repeated
 * or moved): where an overfitted fix breaks. `boundary` inputs are the edges (0, −1, empty, a flag
 * flipped): where the issue often leaves behaviour open.
 */
export interface Perturbation {
  /** `L<n>:<op>`, stable for a given module text. */
  id: string;
  literal: number;
  literalKind: LiteralValue["kind"];
  op: string;
  kind: "neighbour" | "boundary";
  /** The literal's replacement text. */
  text: string;
}

/** One probe: a test run with at most one literal perturbed and every assertion observing. */
export interface ProbeSpec {
  /** `<test id>#base` or `<test id>#L<n>:<op>`: the same for every candidate of a task. */
  id: string;
  testId: string;
  /** The test module it comes from (workspace-relative). */
  file: string;
  /** 1-based line of the perturbed literal, or of the test for a base probe. */
  line: number;
  /** Null for the base probe: the test's own inputs. */
  perturbation: (Perturbation & { before: string }) | null;
}

/** The unperturbed probe's id for a test. */
export function baseProbeId(testId: string): string {
  return `${testId}#base`;
}
