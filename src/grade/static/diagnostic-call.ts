/**
 * How a JavaScript console call prints: its arguments, read from the line that makes it.
 *
 * A debugging session prints values to look at them: `console.error("arg", key, "=>", value)`,
 * `console.warn(err)`, `console.info(JSON.stringify(opts))`, a stack (`console.trace`) or an object
 * tree (`console.dir`). A library talking to its users prints one message: a string
 * (`console.warn("x() is deprecated, use y()")`), a template or a concatenation that composes a
 * sentence around values, or a printf-style format string and its values. So a call prints internal
 * values when it is `trace` or `dir`, when its only argument is not a message, or when it has several
 * arguments that are not all literals and the first is not a format string.
 */
export interface DiagnosticCall {
  printsValues: boolean;
  /** The literal text it prints has at most three words ("here", "=== state"). */
  terse: boolean;
}

/** `open` is the index of the call's `(` in `text`; the arguments end at its `)` or the line's end. */
export function diagnosticCall(text: string, open: number, method: string): DiagnosticCall {
  const args = callArguments(text, open);
  const literalText = args.filter(isStringLiteral).join(" ");
  const terse = (literalText.match(/[A-Za-z]{2,}/g) ?? []).length <= 3;
  if (method === "trace" || method === "dir") return { printsValues: true, terse };
  if (args.length === 0) return { printsValues: false, terse };
  if (args.length === 1) return { printsValues: !isMessage(args[0]!), terse };
  if (isStringLiteral(args[0]!) && FORMAT_SPECIFIER.test(args[0]!)) return { printsValues: false, terse };
  return { printsValues: args.some((a) => !isStringLiteral(a)), terse };
}

const FORMAT_SPECIFIER = /%[sdifjoOc]/;

function isStringLiteral(arg: string): boolean {
  return /^(["'])(?:\\.|(?!\1)[^\\])*\1$/.test(arg) || /^`[^`]*`$/.test(arg);
}

/** A string, or a concatenation that starts or ends with one: text composed for a reader. */
function isMessage(arg: string): boolean {
  if (isStringLiteral(arg)) return true;
  return /^["'`]/.test(arg) || /["'`]$/.test(arg) ? /\+/.test(arg) : false;
}

/** The call's top-level arguments, trimmed; strings, templates and brackets are skipped over whole. */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'" || ch === "`") {
      i = stringEnd(text, i);
    } else if (ch === "(" || ch === "[" || ch === "{") {
      depth++;
    } else if (ch === ")" || ch === "]" || ch === "}") {
      if (depth === 0) {
        push(args, text.slice(start, i));
        return args;
      }
      depth--;
    } else if (ch === "," && depth === 0) {
      push(args, text.slice(start, i));
      start = i + 1;
    }
  }
  push(args, text.slice(start));
  return args;
}

function push(args: string[], arg: string): void {
  const trimmed = arg.trim();
  if (trimmed !== "") args.push(trimmed);
}

/** Index of the quote that closes the string opened at `at` (the line's last index if none does). */
function stringEnd(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote) return i;
  }
  return text.length - 1;
}
