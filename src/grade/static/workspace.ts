import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
} from "node:fs";
import { join, normalize, sep } from "node:path";
import { languageOf } from "./languages.ts";
import { isScriptPath, isTestRole, pathRole } from "./paths.ts";

/**
 * Read-only access to the repository at the base commit (`task.workspace`), for what the patches
 * alone cannot show: visible test files (where test literals come from) and whether a new name is
 * referenced anywhere. Reads never follow symlinks, never leave the root, and stop at the caps, so a
 * huge or hostile tree degrades to "less evidence", never to a crash or a stall.
 */
export interface Workspace {
  root: string;
  /** A file's text, or null when it is missing, not a regular file, a symlink, binary or too large. */
  readFile(relativePath: string): string | null;
  /** Concatenated text of the visible test files. */
  testText(): string;
  /** Concatenated text of the source (non-test) files. */
  sourceText(): string;
  /** Concatenated text of the library code: source files that are not scripts, examples or entry points. */
  librarySourceText(): string;
  /** Whether `word` occurs as a whole identifier in any source or test file. */
  hasWord(word: string): boolean;
}

export interface WorkspaceLimits {
  maxFiles: number;
  maxBytes: number;
}

const SKIP_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  "dist",
  "build",
  "target",
  ".gradle",
  ".idea",
]);
const MAX_FILE_BYTES = 1 << 20;

/** Opens `root` if it is a readable directory, else null (grading then uses the patches alone). */
export function openWorkspace(root: string | undefined, limits: WorkspaceLimits): Workspace | null {
  if (!root) return null;
  try {
    if (!lstatSync(root).isDirectory()) return null;
    readdirSync(root);
  } catch {
    return null;
  }
  const base = normalize(root);
  let files: WalkedFile[] | undefined;
  let testText: string | undefined;
  let sourceText: string | undefined;
  let librarySourceText: string | undefined;
  // Each question reads a different selection of files; a file is read from disk once.
  const texts = new Map<string, string | null>();
  let words: Set<string> | undefined;

  const readFile = (relativePath: string): string | null => {
    const full = normalize(join(base, relativePath));
    if (!full.startsWith(base.endsWith(sep) ? base : base + sep)) return null;
    return readRegularFile(full, base, true);
  };
  const listFiles = () => {
    files ??= walk(base, limits.maxFiles);
    return files;
  };
  const readAll = (select: (f: WalkedFile) => boolean, each: (text: string) => void) => {
    let budget = limits.maxBytes;
    for (const file of listFiles()) {
      if (!select(file) || budget <= 0) continue;
      let text = texts.get(file.path);
      if (text === undefined) {
        // walk() never descends into a symlinked directory, so only the leaf needs O_NOFOLLOW here.
        text = readRegularFile(join(base, file.path), base, false);
        texts.set(file.path, text);
      }
      if (text === null) continue;
      budget -= text.length;
      each(text);
    }
  };
  const readJoined = (select: (f: WalkedFile) => boolean) => {
    const parts: string[] = [];
    readAll(select, (text) => parts.push(text));
    return parts.join("\n");
  };
  return {
    root: base,
    readFile,
    testText() {
      testText ??= readJoined((f) => f.test);
      return testText;
    },
    sourceText() {
      sourceText ??= readJoined((f) => !f.test);
      return sourceText;
    },
    librarySourceText() {
      librarySourceText ??= readJoined((f) => !f.test && !isScriptPath(f.path));
      return librarySourceText;
    },
    hasWord(word: string) {
      if (words === undefined) {
        const found = new Set<string>();
        readAll(
          () => true,
          (text) => {
            for (const w of text.match(/[A-Za-z_$][\w$]*/g) ?? []) found.add(w);
          },
        );
        words = found;
      }
      return words.has(word);
    },
  };
}

interface WalkedFile {
  path: string;
  test: boolean;
}

/** Source and test files under `root`, in name order (relative paths, sorted for the caller). */
function walk(root: string, maxFiles: number): WalkedFile[] {
  const out: WalkedFile[] = [];
  const stack = [""];
  while (stack.length && out.length < maxFiles) {
    const dir = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) subdirs.push(rel);
      } else if (entry.isFile()) {
        const role = pathRole({ path: rel, added: false, changedText: [] });
        const test = isTestRole(role);
        if (test || languageOf(rel) !== null) out.push({ path: rel, test });
        if (out.length >= maxFiles) break;
      }
    }
    // Pushed in reverse so they are visited in name order: the cap then cuts the same files every time.
    stack.push(...subdirs.reverse());
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function readRegularFile(full: string, root: string, checkComponents: boolean): string | null {
  let fd: number | undefined;
  try {
    // Refuse a symlink at the leaf (O_NOFOLLOW) and, for caller-given paths, anywhere in between.
    let probe = root;
    const parts = checkComponents ? full.slice(root.length).split(sep).filter(Boolean) : [];
    for (const part of parts) {
      probe = join(probe, part);
      if (lstatSync(probe).isSymbolicLink()) return null;
    }
    fd = openSync(full, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    if (buffer.subarray(0, Math.min(read, 8000)).includes(0)) return null;
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
