import type { Finding } from "../../src/contracts/finding.ts";
import type { Judged, SuiteResult, TaskResult } from "./fidelity.ts";

/**
 * The fidelity suite's results as the markdown tables of docs/fidelity.md (pure). `writeTables`
 * replaces what stands between the doc's markers, so the doc always shows a measured run.
 */

const BEGIN = "<!-- fidelity-table:begin -->";
const END = "<!-- fidelity-table:end -->";

/** "none", or the count per severity with the kinds: "2 critical (test-source-read), 1 major (…)". */
export function summarizeFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return "none";
  const parts: string[] = [];
  for (const severity of ["critical", "major", "minor"] as const) {
    const of = findings.filter((f) => f.severity === severity);
    if (of.length === 0) continue;
    const kinds = [...new Set(of.map((f) => f.kind))].sort().join(", ");
    parts.push(`${of.length} ${severity} (${kinds})`);
  }
  return parts.join("; ");
}

const short = (revision: string) => (/^[0-9a-f]{40}$/.test(revision) ? revision.slice(0, 12) : revision);
const verdict = (j: Judged | undefined) => j?.reason ?? "—";
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function table(head: string[], rows: string[][]): string {
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(" | ")} |`);
  return lines.join("\n");
}

export function renderTables(results: { tasks: TaskResult[]; suites: SuiteResult[] }): string {
  const tasks = table(
    ["repository", "task", "fix", "base", "runner", "F2P", "P2P", "gold", "gold findings", "empty patch"],
    results.tasks.map((t) => [
      t.repository,
      t.task,
      short(t.fix),
      short(t.base),
      t.runner,
      t.importError ? "—" : String(t.failToPass ?? "—"),
      t.importError ? "—" : String(t.passToPass ?? "—"),
      t.importError ? `import failed: ${t.importError.split("\n")[0]}` : verdict(t.gold),
      t.gold ? summarizeFindings(t.gold.findings) : "—",
      verdict(t.empty),
    ]),
  );
  const suites = table(
    [
      "repository",
      "commit",
      "runner",
      "test files",
      "tests",
      "same result with and without guards",
      "guarded run",
      "guarded run's findings",
      "time guarded / bare",
    ],
    results.suites.map((s) => {
      if (s.error || !s.guarded || !s.bare)
        return [
          s.repository,
          short(s.at),
          s.runner,
          String(s.files),
          "—",
          `not run: ${s.error ?? "?"}`,
          "—",
          "—",
          "—",
        ];
      const total = (s.agreeing ?? 0) + (s.differences?.length ?? 0);
      return [
        s.repository,
        short(s.at),
        s.runner,
        String(s.files),
        String(total),
        `${s.agreeing}/${total}${s.settled?.length ? ` (${s.settled.length} differed once, then agreed when their files ran again: ${[...new Set(s.settled.map((d) => d.id.split("::")[0]))].join(", ")})` : ""}`,
        s.guarded.reason,
        summarizeFindings(s.guarded.findings),
        (s.guarded.ms / s.bare.ms).toFixed(2),
      ];
    }),
  );
  return `### Tasks\n\n${tasks}\n\n### Whole suites\n\n${suites}\n`;
}

/** The doc with the text between its table markers replaced by `tables`. */
export function replaceTables(doc: string, tables: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the doc has no ${BEGIN} … ${END} markers`);
  return `${doc.slice(0, start + BEGIN.length)}\n${tables}${doc.slice(end)}`;
}
