/**
 * The pytest guard reaches the test process through PYTHONPATH (guard-setup.ts): pytest imports it by
 * name. A task's command often sets PYTHONPATH itself (`src/` layouts): `env PYTHONPATH=src python -m
 * pytest`, `sh -c "PYTHONPATH=src pytest …"`. Such an assignment would replace the variable gagar set,
 * and pytest would stop with "Error importing plugin" for a reason that has nothing to do with the
 * candidate. Python offers no other way in that a task cannot also take away (a venv drops the user
 * site, a `-S` the site directories), so the guard's directory is composed into the command's own
 * assignments, after the task's entries: `PYTHONPATH=src` becomes `PYTHONPATH=src:/gagar/support`. The
 * guard's modules have random names, so where the directory sits on sys.path changes nothing the
 * program imports. Pure functions of the command.
 */

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh"]);
const PYTHON = /^python[\d.]*$/;
const VARIABLE = "PYTHONPATH";

/** `argv` with `dir` added at the end of every PYTHONPATH its `env` prefix or shell script assigns. */
export function withPythonPath(argv: readonly string[], dir: string): string[] {
  const program = basename(argv[0] ?? "");
  if (program === "env") return envWithPythonPath(argv, dir);
  if (SHELLS.has(program)) {
    const at = shellScriptIndex(argv);
    if (at === null) return [...argv];
    const out = [...argv];
    out[at] = scriptWithPythonPath(argv[at]!, dir);
    return out;
  }
  return [...argv];
}

/**
 * Whether the Python the command starts ignores PYTHONPATH (`-I`, `-E`), through `env` prefixes and
 * `sh -c` scripts: such a command cannot load the pytest guard at all.
 */
export function ignoresPythonPath(argv: readonly string[]): boolean {
  const program = basename(argv[0] ?? "");
  if (program === "env") {
    const parsed = parseEnv(argv);
    return parsed !== null && ignoresPythonPath(argv.slice(parsed.command));
  }
  if (SHELLS.has(program)) {
    const at = shellScriptIndex(argv);
    return at !== null && /(^|[\s;&|(/])python[\d.]*\s+(?:-[A-Za-z]+\s+)*-[A-HJ-Za-z]*[IE]/.test(argv[at]!);
  }
  if (!PYTHON.test(program)) return false;
  for (const arg of argv.slice(1)) {
    if (!arg.startsWith("-") || arg.startsWith("--") || arg === "-m" || arg === "-c") return false;
    if (/^-[A-Za-z]*[IE]/.test(arg)) return true;
  }
  return false;
}

// ------------------------------------------------------------------------------------------------ env

interface EnvCommand {
  /** Index of the first word of the command env runs (argv.length when there is none). */
  command: number;
}

/** Where `env`'s own options and assignments end; null for forms not understood (`-S`, `--split-string`). */
function parseEnv(argv: readonly string[]): EnvCommand | null {
  let i = 1;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-S" || arg.startsWith("--split-string") || /^-[^-]*S/.test(arg)) return null;
    if (arg === "-u" || arg === "--unset" || arg === "-C" || arg === "--chdir") {
      i++;
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") continue;
    if (!/^[^=]+=/.test(arg)) break;
  }
  while (i < argv.length && /^[A-Za-z_]\w*=/.test(argv[i]!)) i++;
  return { command: i };
}

function envWithPythonPath(argv: readonly string[], dir: string): string[] {
  const parsed = parseEnv(argv);
  if (parsed === null) return [...argv];
  const head: string[] = [argv[0]!];
  let unset = false;
  for (let i = 1; i < parsed.command; i++) {
    const arg = argv[i]!;
    if ((arg === "-u" || arg === "--unset") && argv[i + 1] === VARIABLE) {
      unset = true;
      i++;
      continue;
    }
    if (arg === `-u${VARIABLE}` || arg === `--unset=${VARIABLE}`) {
      unset = true;
      continue;
    }
    if (arg.startsWith(`${VARIABLE}=`)) {
      const value = arg.slice(VARIABLE.length + 1);
      head.push(`${VARIABLE}=${value ? `${value}:${dir}` : dir}`);
      unset = false;
      continue;
    }
    head.push(arg);
  }
  // A command that unsets PYTHONPATH still gets the guard's directory, and nothing else.
  if (unset) head.push(`${VARIABLE}=${dir}`);
  return [...head, ...withPythonPath(argv.slice(parsed.command), dir)];
}

// --------------------------------------------------------------------------------------------- shells

/** The index of the script of `sh [options] -c SCRIPT [name [args]]`, or null when there is none. */
function shellScriptIndex(argv: readonly string[]): number | null {
  let command = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--" || arg === "-") return command && i + 1 < argv.length ? i + 1 : null;
    if (arg === "-o" || arg === "+o" || arg === "--rcfile" || arg === "--init-file") {
      i++;
      continue;
    }
    if (arg.startsWith("--")) continue;
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) command = true;
      if (arg.includes("o")) i++; // `-euo pipefail`: the option's name is the next word
      continue;
    }
    return command ? i : null;
  }
  return null;
}

/** Words after which the next words of a simple command may still be assignments. */
const KEEPS_ASSIGNMENTS = new Set([
  "!",
  "{",
  "then",
  "do",
  "else",
  "elif",
  "if",
  "while",
  "until",
  "time",
  "exec",
  "command",
  "export",
  "readonly",
  "local",
  "declare",
  "typeset",
  "env",
]);

/** A word of a shell script: where it starts and ends, and its raw text. */
interface Word {
  start: number;
  end: number;
  text: string;
}

/**
 * `script` with `dir` added to each PYTHONPATH it assigns in a command's assignment position
 * (`PYTHONPATH=src pytest`, `export PYTHONPATH=…`, `env PYTHONPATH=… cmd`); any other text is kept
 * byte for byte. Here-documents are not told apart from commands: a body line that assigns PYTHONPATH
 * would be changed too.
 */
export function scriptWithPythonPath(script: string, dir: string): string {
  if (!script.includes(`${VARIABLE}=`)) return script;
  const edits: { at: number; text: string }[] = [];
  const quoted = /^[\w/.:+-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, "'\\''")}'`;
  for (const word of assignmentWords(script)) {
    if (!word.text.startsWith(`${VARIABLE}=`)) continue;
    const empty = word.text.length === VARIABLE.length + 1 || /^PYTHONPATH=(""|'')$/.test(word.text);
    edits.push(empty ? { at: word.end, text: quoted } : { at: word.end, text: `:${quoted}` });
  }
  let out = script;
  for (const edit of edits.sort((a, b) => b.at - a.at))
    out = out.slice(0, edit.at) + edit.text + out.slice(edit.at);
  return out;
}

/** The words of `script` that stand where a simple command's variable assignments go. */
function assignmentWords(script: string): Word[] {
  const found: Word[] = [];
  let atStart = true;
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === " " || c === "\t") {
      i++;
      continue;
    }
    if (c === "\n" || c === ";" || c === "&" || c === "|" || c === "(" || c === ")") {
      atStart = true;
      i++;
      continue;
    }
    if (c === "#") {
      while (i < script.length && script[i] !== "\n") i++;
      continue;
    }
    const end = wordEnd(script, i);
    const text = script.slice(i, end);
    if (atStart && /^[A-Za-z_]\w*=/.test(text)) found.push({ start: i, end, text });
    // `export -n`, `env -i`, `declare -x`: options of a word that keeps the position keep it too.
    else if (!(atStart && (KEEPS_ASSIGNMENTS.has(text) || text.startsWith("-")))) atStart = false;
    i = end;
  }
  return found;
}

/** Where the word starting at `i` ends: at an unquoted blank or operator, past quotes and `$(…)`. */
function wordEnd(s: string, i: number): number {
  while (i < s.length) {
    const c = s[i]!;
    if (" \t\n;&|()<>".includes(c)) return i;
    if (c === "\\") i += 2;
    else if (c === "'") i = closing(s, i + 1, "'");
    else if (c === '"') i = doubleQuoted(s, i + 1);
    else if (c === "`") i = closing(s, i + 1, "`");
    else if (c === "$" && s[i + 1] === "(") i = parenthesised(s, i + 2);
    else if (c === "$" && s[i + 1] === "{") i = closing(s, i + 2, "}");
    else i++;
  }
  return i;
}

function closing(s: string, i: number, quote: string): number {
  while (i < s.length && s[i] !== quote) i += s[i] === "\\" && quote !== "'" ? 2 : 1;
  return Math.min(i + 1, s.length);
}

function doubleQuoted(s: string, i: number): number {
  while (i < s.length && s[i] !== '"') {
    if (s[i] === "\\") i += 2;
    else if (s[i] === "$" && s[i + 1] === "(") i = parenthesised(s, i + 2);
    else if (s[i] === "`") i = closing(s, i + 1, "`");
    else i++;
  }
  return Math.min(i + 1, s.length);
}

function parenthesised(s: string, i: number): number {
  let depth = 1;
  while (i < s.length && depth > 0) {
    const c = s[i]!;
    if (c === "\\") i += 2;
    else if (c === "'") i = closing(s, i + 1, "'");
    else if (c === '"') i = doubleQuoted(s, i + 1);
    else {
      if (c === "(") depth++;
      else if (c === ")") depth--;
      i++;
    }
  }
  return i;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
