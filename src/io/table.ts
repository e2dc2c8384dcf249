/** Renders rows as a plain left-aligned text table (numbers right-aligned), for terminal summaries. */
export function renderTable(header: string[], rows: (string | number)[][], indent = ""): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === "number"));
  const widths = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? "").length)));
  return cells
    .map(
      (r) =>
        indent +
        r
          .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
          .join("  ")
          .trimEnd(),
    )
    .join("\n");
}

/** A number with a fixed precision and an explicit sign, so columns of advantages line up. */
export function signed(x: number, digits = 3): string {
  return (x >= 0 ? "+" : "") + x.toFixed(digits);
}
