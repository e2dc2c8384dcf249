import { type FileView, newSideLines } from "./candidate-view.ts";
import { diagnosticCall } from "./diagnostic-call.ts";
import type { Evidence } from "./evidence.ts";
import type { LanguageId } from "./languages.ts";
import { isScriptPath } from "./paths.ts";
import { lineKey } from "./profile.ts";
import type { ProjectUsage } from "./project-usage.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Debug leftovers in added source lines.
 *
 * Debugger hooks (`breakpoint()`, `pdb.set_trace()`, `debugger`, `dbg!`, `binding.pry`, …) are always
 * leftovers; so is library code (not a script or entry point) that configures logging for the whole
 * process, like Python's `logging.basicConfig(level=logging.DEBUG)` at import. Plain output calls (`print`, `console.log`, `System.out.println`, `puts`, `fmt.Println`)
 * are leftovers only when nothing says the code prints on purpose: the file already used the same call
 * before the patch, it is CLI/script code, the enclosing function is an output function (`log`,
 * `report`, `__repr__`…), or another candidate adds the same line. A call whose text reads like
 * debugging ("DEBUG", "here", `f"{x=}"`, "===") is a leftover regardless.
 *
 * JavaScript's other console calls (`console.error/warn/info/debug/trace/dir`) are also how libraries
 * talk to their users (a deprecation warning), so they are leftovers only when they print internal
 * values the way a debugging session does (diagnostic-call.ts: `console.error("arg", key, value)`,
 * `console.warn(err)`, any `trace` or `dir`), and, besides the exemptions above, only when the
 * project's library code never made that call itself (`projectUses`).
 */
export function debugEvidence(
  file: FileView,
  peerAdds: (lineKey: string) => boolean,
  workspace: Workspace | null,
  projectUses: ProjectUsage = () => false,
): Evidence[] {
  if (file.role !== "source" || file.language === null) return [];
  const rules = RULES[file.language];
  if (!rules) return [];
  const evidence: Evidence[] = [];
  const rows = newSideLines(file);
  let oldText: string | null | undefined;
  const fileAlreadyUses = (token: string) => {
    if (file.changes.some((c) => c.kind === "del" && c.text.includes(token))) return true;
    if (rows.some((r) => !r.added && r.text.includes(token))) return true;
    if (oldText === undefined)
      oldText = file.status === "added" ? null : (workspace?.readFile(file.path) ?? null);
    return oldText?.includes(token) ?? false;
  };
  // Whether something says row i prints on purpose: a peer adds it, the code is a script, the file
  // already made the call, or the enclosing function is an output function.
  const intended = (i: number, token: string) =>
    peerAdds(lineKey(file.path, rows[i]!.text.replace(/\s+/g, ""))) ||
    isScriptPath(file.path) ||
    fileAlreadyUses(token) ||
    OUTPUT_FUNCTION.test(enclosingFunction(rows, i));
  rows.forEach((row, i) => {
    if (!row.added) return;
    const config = isScriptPath(file.path) ? null : rules.globalConfig?.exec(row.text);
    if (config) {
      evidence.push(
        finding(
          file,
          row.newLine,
          `\`${row.text.trim().slice(0, 60)}\` configures logging for the whole process from library code; leave that to the application`,
        ),
      );
      return;
    }
    const hook = rules.hooks?.exec(row.text);
    if (hook) {
      evidence.push(
        finding(
          file,
          row.newLine,
          `debugger hook \`${hook[0].trim()}\` left in; remove it before submitting`,
        ),
      );
      return;
    }
    const diagnostic = rules.diagnostic?.exec(row.text);
    if (diagnostic) {
      const open = diagnostic.index + diagnostic[0].length - 1;
      const call = diagnosticCall(row.text, open, diagnostic[2]!);
      // What it prints reads like debugging (not the method: `console.debug` says nothing), and
      // tersely: "here", "=== x"; a sentence that says "debug" is a message.
      const debugText = DEBUG_TEXT.test(row.text.slice(open)) && (call.printsValues || call.terse);
      if (!debugText) {
        if (!call.printsValues) return;
        if (intended(i, diagnostic[1]!) || projectUses(`${diagnostic[1]}(`)) return;
      }
      const shown = row.text.trim().slice(0, 60);
      evidence.push(
        finding(
          file,
          row.newLine,
          debugText
            ? `\`${shown}\` reads like a debug print left in library code; remove it`
            : `\`${shown}\` prints internal values like a debugging session, in code that never made this call; remove it or use the project's logger`,
        ),
      );
      return;
    }
    const print = rules.print?.exec(row.text);
    if (!print) return;
    if (!DEBUG_TEXT.test(row.text) && intended(i, print[1]!)) return;
    evidence.push(
      finding(
        file,
        row.newLine,
        `\`${row.text.trim().slice(0, 60)}\` looks like a debug print left in library code; remove it or use the project's logger`,
      ),
    );
  });
  return evidence;
}

function finding(file: FileView, line: number, message: string): Evidence {
  return { kind: "debug-leftover", file: file.path, line, message };
}

interface Rules {
  /** Always a leftover. */
  hooks?: RegExp;
  /** A leftover outside scripts and entry points: configuring the process's logging from library code. */
  globalConfig?: RegExp;
  /** An output call; group 1 is the token looked up in the old file. */
  print?: RegExp;
  /**
   * A diagnostic call that may also be a deliberate message (diagnostic-call.ts); group 1 is the
   * token looked up in the old file and the project, group 2 the method, and the match ends at `(`.
   */
  diagnostic?: RegExp;
}

const JS_RULES: Rules = {
  hooks: /^\s*debugger\s*;?\s*$/,
  print: /^\s*(console\.log)\(/,
  diagnostic: /\b(console\.(error|warn|info|debug|trace|dir))\s*\(/,
};

const RULES: Partial<Record<LanguageId, Rules>> = {
  python: {
    hooks:
      /^\s*(import\s+(i?pdb|pudb)\b|from\s+(i?pdb|pudb)\s+import\b)|\b(i?pdb|pudb)\.set_trace\(|^\s*breakpoint\(\s*\)/,
    print: /^\s*(print)\(/,
    globalConfig: /\blogging\.basicConfig\(|\bgetLogger\(\s*\)\.setLevel\(/,
  },
  javascript: JS_RULES,
  typescript: JS_RULES,
  tsx: JS_RULES,
  java: { hooks: /\.printStackTrace\(\s*\)/, print: /\b(System\.(?:out|err)\.print(?:ln|f)?)\(/ },
  kotlin: { hooks: /\.printStackTrace\(\s*\)/, print: /^\s*(println|print)\(/ },
  rust: { hooks: /\bdbg!\(/, print: /^\s*(e?println!)\(/ },
  ruby: { hooks: /\bbinding\.(pry|irb)\b|^\s*byebug\b/, print: /^\s*(puts|pp|p)[\s(]/ },
  go: { print: /^\s*(fmt\.Print(?:ln|f)?)\(/ },
  php: { hooks: /\b(var_dump|print_r|dd)\(/ },
  csharp: { print: /\b(Console\.Write(?:Line)?)\(/ },
};

const DEBUG_TEXT = /\b(debug|DEBUG|Debug|here|HERE|XXX|TRACE|tmp)\b|>>>|===|\*\*\*|-{3,}|\{[\w.]+=\}|\bdbg\b/;
const OUTPUT_FUNCTION = /log|print|show|display|report|dump|echo|emit|write|usage|help|main|output/i;

/** Name of the nearest function header above row `i` that is less indented (within the hunk's new side). */
function enclosingFunction(rows: { text: string; hunk: number }[], i: number): string {
  const indent = (t: string) => t.length - t.trimStart().length;
  let limit = indent(rows[i]!.text);
  for (let j = i - 1; j >= 0 && rows[j]!.hunk === rows[i]!.hunk; j--) {
    const text = rows[j]!.text;
    if (text.trim() === "" || indent(text) >= limit) continue;
    limit = indent(text);
    const header =
      /^\s*(?:async\s+)?def\s+(\w+)/.exec(text) ??
      /\bfunction\s*\*?\s*(\w+)/.exec(text) ??
      /^\s*(?:(?:public|private|protected|static|final|async|override|fun|fn)\s+)*[\w<>[\],.? ]*?\b(\w+)\s*\([^;]*\)\s*(?:throws [\w., ]+)?\{?\s*$/.exec(
        text,
      );
    if (header && !KEYWORDS.has(header[1]!)) return header[1]!;
  }
  return "";
}

const KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "with",
  "return",
  "elif",
  "else",
  "try",
  "synchronized",
]);
