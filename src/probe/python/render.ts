import { type Edit, renderSpan, replaceWith } from "../edits.ts";
import type { ProbeVariant } from "../render-types.ts";
import type { Span, TestAssertion, TestModule, TestSite } from "../types.ts";
import { pythonStringLiteral } from "./literals.ts";

/**
 * A pytest probe module (pure): the test module with every test replaced by its probes — copies of it
 * named `<test>__gagar_probe_<n>`, each with at most one literal perturbed (a parametrized test keeps
 * only the perturbed row), every assertion rewritten into an observation of the helper, and the
 * helper's decorator recording how the test ended. Everything else in the module stays as written, so
 * its imports, fixtures and helpers work as they do for the tests.
 */
export function renderPythonProbes(
  module: TestModule,
  variants: ReadonlyMap<TestSite, readonly ProbeVariant[]>,
  helper: string,
): string {
  const { text } = module;
  const edits: Edit[] = [];
  for (const site of module.tests) {
    const mine = variants.get(site) ?? [];
    const indent = indentAt(text, site.span.start);
    const copies = mine.map((variant, n) =>
      renderSpan(text, site.span, variantEdits(text, site, variant, n, indent)),
    );
    // A test without probes still goes: its original would otherwise run in the probe run.
    edits.push(replaceWith(site.span, copies.length ? copies.join(`\n\n${indent}`) : "pass"));
  }
  for (const assertion of module.helperAssertions) edits.push(observation(assertion));
  const at = module.preambleEnd;
  edits.push(replaceWith({ start: at, end: at }, at === 0 ? `${helper}\n\n` : `\n\n${helper}\n`));
  return renderSpan(text, { start: 0, end: text.length }, edits);
}

function variantEdits(
  text: string,
  site: TestSite,
  variant: ProbeVariant,
  n: number,
  indent: string,
): Edit[] {
  const edits: Edit[] = [
    replaceWith(
      { start: site.span.start, end: site.span.start },
      `@_gagar_probe.probe_test(${pythonStringLiteral(variant.probe.id, false)})\n${indent}`,
    ),
  ];
  const name = site.anchors.name!;
  const original = text.slice(name.start, name.end);
  edits.push(replaceWith(name, `${original}__gagar_probe_${n}`));
  const { literal, perturbation } = variant;
  if (literal && perturbation) {
    edits.push(replaceWith(literal.span, perturbation.text));
    if (literal.row) {
      const table = site.tables[literal.row.table]!;
      const row = table.rows[literal.row.row]!;
      // Evaluated when the module loads: a row that raises must not take the other probes with it.
      edits.push({
        span: table.span,
        render: (inner) => `_gagar_probe.table(lambda: [${inner(row)}], ${table.width})`,
      });
      for (const drop of table.drop) edits.push(replaceWith(drop, ""));
    }
  }
  for (const assertion of site.assertions) edits.push(observation(assertion));
  return edits;
}

/** The helper call an assertion becomes. */
function observation(a: TestAssertion): Edit {
  return {
    span: a.span,
    render(inner) {
      const key = pythonStringLiteral(a.key, false);
      const op = pythonStringLiteral(a.operator, false);
      const thunk = (s: Span) => `lambda: (${inner(s)})`;
      const [first, second] = a.operands;
      switch (a.kind) {
        case "equal":
          return `_gagar_probe.check(${key}, ${op}, ${thunk(first!)}, ${thunk(second!)})`;
        case "operands":
          return `_gagar_probe.operands(${key}, ${op}, ${thunk(first!)}, ${thunk(second!)})`;
        case "value":
          return `_gagar_probe.value(${key}, ${op}, ${thunk(first!)})`;
        case "throws":
          return `_gagar_probe.call(${key}, ${thunk(first!)}, ${inner(second!)})`;
        case "raises-block":
          return `_gagar_probe.raises(${key}${first ? `, ${thunk(first)}` : ""})`;
        case "warns-block":
          return `_gagar_probe.warns(${key})`;
        case "settles":
          throw new Error("pytest probes do not await assertions");
      }
    },
  };
}

function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  return /^\s*$/.test(prefix) ? prefix : "";
}
