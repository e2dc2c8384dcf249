import { type Edit, renderSpan, replaceWith } from "../edits.ts";
import type { ProbeVariant } from "../render-types.ts";
import type { Span, TestAssertion, TestModule, TestSite } from "../types.ts";

/**
 * A JavaScript or TypeScript probe module (pure): the test module with every test declaration replaced
 * by its probes — the same declaration once per probe, its title marked, its function wrapped by the
 * helper (which records how the test ended), at most one literal perturbed (an `.each` test keeps only
 * the perturbed row), every assertion rewritten into an observation. The helper is brought in by a
 * side-effect import (`import`/`require`, as the module itself does) and found as a global, so the
 * same text works for ES modules, CommonJS and TypeScript compiled either way; TypeScript probes are
 * not type-checked (`// @ts-nocheck`): a perturbed literal may leave a literal type.
 */
export function renderJsProbes(
  module: TestModule,
  variants: ReadonlyMap<TestSite, readonly ProbeVariant[]>,
  helperSpecifier: string,
): string {
  const { text } = module;
  const edits: Edit[] = [];
  for (const site of module.tests) {
    const mine = variants.get(site) ?? [];
    const copies = mine.map((variant, n) => renderSpan(text, site.span, variantEdits(site, variant, n)));
    const statement = site.anchors.statement;
    if (copies.length === 0) edits.push(replaceWith(site.span, "undefined"));
    else if (statement) {
      const indent = indentAt(text, statement.start);
      edits.push(replaceWith(site.span, copies.join(`;\n${indent}`)));
    } else edits.push(replaceWith(site.span, `(${copies.join(", ")})`));
  }
  for (const assertion of module.helperAssertions) edits.push(observation(assertion, "null"));
  const importLine = module.esm
    ? `import ${JSON.stringify(helperSpecifier)};`
    : `require(${JSON.stringify(helperSpecifier)});`;
  const at = module.preambleEnd;
  edits.push(replaceWith({ start: at, end: at }, at === 0 ? `${importLine}\n` : `\n${importLine}\n`));
  const body = renderSpan(text, { start: 0, end: text.length }, edits);
  const typescript = /\.[cm]?tsx?$/.test(module.file);
  if (!typescript) return body;
  // A hashbang must stay first; the pragma goes right after it.
  return body.startsWith("#!")
    ? body.replace(/^([^\n]*\n)/, "$1// @ts-nocheck\n")
    : `// @ts-nocheck\n${body}`;
}

function variantEdits(site: TestSite, variant: ProbeVariant, n: number): Edit[] {
  const edits: Edit[] = [];
  const title = site.anchors.title;
  if (title) edits.push({ span: title, render: (inner) => `${inner(title)} + " [gagar probe ${n}]"` });
  const fn = site.anchors.fn!;
  const id = JSON.stringify(variant.probe.id);
  edits.push({ span: fn, render: (inner) => `__gagarProbe.test(${id}, ${inner(fn)})` });
  const { literal, perturbation } = variant;
  if (literal && perturbation) {
    edits.push(replaceWith(literal.span, perturbation.text));
    if (literal.row) {
      const table = site.tables[literal.row.table]!;
      const row = table.rows[literal.row.row]!;
      // Evaluated when the module loads: a row that throws must not take the other probes with it.
      edits.push({ span: table.span, render: (inner) => `__gagarProbe.table(() => [${inner(row)}])` });
    }
  }
  for (const [name, span] of Object.entries(site.anchors))
    if (name.startsWith("remove")) edits.push(replaceWith(span, "undefined"));
  for (const assertion of site.assertions) edits.push(observation(assertion, id));
  return edits;
}

/** The helper call an assertion becomes; `probe` is the probe id's literal, or `null` in a helper. */
function observation(a: TestAssertion, probe: string): Edit {
  return {
    span: a.span,
    render(inner) {
      const head = `${probe}, ${JSON.stringify(a.key)}, ${JSON.stringify(a.operator)}`;
      const thunk = (s: Span | undefined) =>
        s === undefined ? "undefined" : `${a.awaits ? "async " : ""}() => (${inner(s)})`;
      const [first, second] = a.operands;
      const call = (method: string, args: string) =>
        a.awaits ? `(await __gagarProbe.${method}Async(${args}))` : `__gagarProbe.${method}(${args})`;
      switch (a.kind) {
        case "equal":
          return call("check", `${head}, ${thunk(first)}, ${thunk(second)}`);
        case "operands":
          return call("operands", `${head}, ${thunk(first)}, ${thunk(second)}`);
        case "value":
          return call("value", `${head}, ${thunk(first)}`);
        case "throws":
          return call("throws", `${head}, ${thunk(first)}, ${thunk(second)}`);
        case "settles":
          return `__gagarProbe.settles(${head}, () => (${inner(first!)}), ${second ? `() => (${inner(second)})` : "undefined"})`;
        case "raises-block":
        case "warns-block":
          throw new Error("JavaScript probes have no assertion blocks");
      }
    },
  };
}

function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  return /^\s*$/.test(prefix) ? prefix : "";
}
