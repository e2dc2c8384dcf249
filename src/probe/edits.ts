import type { Span } from "./types.ts";

/**
 * Rewriting a span of text with edits that may nest (pure): a perturbed literal inside an assertion's
 * operand inside a test. An edit replaces its span with what its `render` returns; `render` gets a
 * function that renders any span inside it with the edits inside that span applied, so an observation
 * call can be built from its operands as already perturbed.
 */
export interface Edit {
  span: Span;
  render(inner: (span: Span) => string): string;
}

export function replaceWith(span: Span, text: string): Edit {
  return { span, render: () => text };
}

/** Renders `span` of `text` with `edits` applied. Edits must nest or be disjoint; overlaps throw. */
export function renderSpan(text: string, span: Span, edits: readonly Edit[]): string {
  // Insertions (empty spans) first among edits starting at the same place, then outer before inner.
  const empty = (e: Edit) => (e.span.start === e.span.end ? 0 : 1);
  const sorted = [...edits].sort(
    (a, b) => a.span.start - b.span.start || empty(a) - empty(b) || b.span.end - a.span.end,
  );
  const render = (outer: Span, pool: readonly Edit[]): string => {
    let out = "";
    let at = outer.start;
    let i = 0;
    while (i < pool.length) {
      const edit = pool[i]!;
      if (edit.span.start < at) throw new Error(`overlapping edits at ${edit.span.start}`);
      // The edits nested in this one are the ones that follow it and end within it.
      let j = i + 1;
      while (j < pool.length && pool[j]!.span.start < edit.span.end) {
        if (pool[j]!.span.end > edit.span.end) throw new Error(`overlapping edits at ${pool[j]!.span.start}`);
        j++;
      }
      const nested = pool.slice(i + 1, j);
      out += text.slice(at, edit.span.start);
      out += edit.render((inner) => {
        const within = nested.filter((e) => e.span.start >= inner.start && e.span.end <= inner.end);
        return render(inner, within);
      });
      at = edit.span.end;
      i = j;
    }
    return out + text.slice(at, outer.end);
  };
  const within = sorted.filter((e) => e.span.start >= span.start && e.span.end <= span.end);
  return render(span, within);
}
