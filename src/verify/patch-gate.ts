import type { Finding } from "../contracts/finding.ts";
import { formatDiff } from "../diff/format.ts";
import { DiffParseError, type FileDiff, filePath, parseDiff } from "../diff/parse.ts";
import { InvariantError } from "../errors.ts";
import { forbiddenReason, type PathPolicy } from "./protected-paths.ts";

/**
 * The static patch gate: every check that can be made on the patch text, before anything runs.
 *
 * The patch is parsed as `git apply` reads it (parse.ts: `diff --git` and plain `diff -u` headers, free
 * text between files). Then:
 * - size, file and hunk caps (B7);
 * - **reject** forbidden paths (`..`, absolute, `.git/`, bytecode, native libraries, `.pth`,
 *   sitecustomize/usercustomize; see protected-paths.ts), symlinks (mode 120000), gitlinks (160000),
 *   binary hunks, new top-level Python modules that would shadow the toolchain (C6: a `pytest/`
 *   package at the root would replace the test runner itself), and new modules the tests would import
 *   instead of the repository's own or of a module they import (`module-shadowing`, security.md §7);
 * - **strip** (default) or **reject** segments touching protected paths, with a finding each.
 * `git apply` gets the surviving files written out canonically (format.ts), never the candidate's own
 * text, so it applies exactly the paths and modes checked here. An empty result is legal: the tests
 * then run on the unchanged repository.
 */

export type ProtectedPolicy = "strip" | "reject";

export interface GateLimits {
  maxBytes: number;
  maxFiles: number;
  maxHunks: number;
}

export const DEFAULT_GATE_LIMITS: GateLimits = { maxBytes: 1 << 20, maxFiles: 200, maxHunks: 2000 };

export interface GateOptions {
  policy: PathPolicy;
  protectedPolicy?: ProtectedPolicy;
  limits?: Partial<GateLimits>;
  /** Importable top-level module names of the sandbox toolchain (stdlib and installed packages). */
  shadowModules?: ReadonlySet<string>;
  /** Whether the pristine repository has this path (file or directory); shadowing only counts for new names. */
  pristineHas?: (path: string) => boolean;
  /**
   * The repository's own top-level Python modules and the directory each lives in ("" for the root),
   * and the other modules the hidden tests import. A new module of one of these names in a directory
   * the tests' sys.path looks in first (a test directory, under pytest's default import mode, or the
   * root for a `src/` layout) would be imported instead of the real one: a fixed copy under `tests/`
   * passes the tests while the package stays broken (class 1 of security.md §7).
   */
  testImports?: { repository: Readonly<Record<string, string>>; others: readonly string[] };
}

export type GateResult =
  | { ok: true; patch: string; files: FileDiff[]; findings: Finding[]; stripped: string[] }
  | { ok: false; reason: string; findings: Finding[] };

const ALLOWED_MODES = new Set(["100644", "100755"]);

export function gatePatch(patch: string, options: GateOptions): GateResult {
  const limits = { ...DEFAULT_GATE_LIMITS, ...options.limits };
  const bytes = Buffer.byteLength(patch, "utf8");
  if (bytes > limits.maxBytes) return reject(`patch is ${bytes} bytes; the limit is ${limits.maxBytes}`);
  let files: FileDiff[];
  try {
    files = parseDiff(patch);
  } catch (e) {
    if (e instanceof DiffParseError) return reject(`unparseable patch: ${e.message}`);
    throw e;
  }
  if (files.length > limits.maxFiles) {
    return reject(`patch touches ${files.length} files; the limit is ${limits.maxFiles}`);
  }
  const hunks = files.reduce((n, f) => n + f.hunks.length, 0);
  if (hunks > limits.maxHunks) return reject(`patch has ${hunks} hunks; the limit is ${limits.maxHunks}`);

  // A path the patch deletes or renames away is gone when the new files are imported (a module
  // turned into a package of the same name is a refactor, not a shadow).
  const removed = new Set(
    files.filter((f) => f.status === "deleted" || f.status === "renamed").map((f) => f.oldPath),
  );
  const pristineHas = options.pristineHas;
  const afterPatch: GateOptions = {
    ...options,
    ...(pristineHas && { pristineHas: (p: string) => !removed.has(p) && pristineHas(p) }),
  };
  for (const file of files) {
    const refused = refusal(file, afterPatch);
    if (refused) {
      return reject(refused.why, {
        kind: refused.kind,
        severity: "critical",
        file: filePath(file),
        message: `patch rejected: ${refused.why}`,
      });
    }
  }

  const findings: Finding[] = [];
  const kept: FileDiff[] = [];
  const stripped: string[] = [];
  for (const file of files) {
    const paths = [...new Set([file.oldPath, file.newPath].filter((p): p is string => p !== null))];
    const hit = paths
      .map((p) => ({ path: p, protection: options.policy.protectionOf(p) }))
      .find((h) => h.protection);
    if (!hit?.protection) {
      kept.push(file);
      continue;
    }
    const action = options.protectedPolicy === "reject" ? "rejected" : "stripped";
    const finding: Finding = {
      kind: hit.protection.kind,
      severity: hit.protection.severity,
      file: hit.path,
      message: `patch changes ${hit.path} (${hit.protection.why}); the change was ${action}`,
    };
    const line = file.hunks[0]?.newStart;
    if (line !== undefined) finding.line = line;
    findings.push(finding);
    stripped.push(hit.path);
  }
  if (options.protectedPolicy === "reject" && findings.length) {
    return { ok: false, reason: `patch changes protected paths: ${stripped.join(", ")}`, findings };
  }
  return { ok: true, patch: canonical(kept), files: kept, findings, stripped };
}

/** The kept files as git will read them; reading them back must give the same files. */
function canonical(files: FileDiff[]): string {
  const text = formatDiff(files);
  const again = parseDiff(text);
  const same = (f: FileDiff, g: FileDiff | undefined) =>
    g !== undefined &&
    f.oldPath === g.oldPath &&
    f.newPath === g.newPath &&
    f.status === g.status &&
    f.hunks.length === g.hunks.length;
  if (again.length !== files.length || !files.every((f, i) => same(f, again[i])))
    throw new InvariantError("the gate's canonical patch does not parse back to the files it checked");
  return text;
}

function reject(reason: string, finding?: Finding): GateResult {
  return { ok: false, reason, findings: finding ? [finding] : [] };
}

/** Why this file diff makes the patch unacceptable, and the kind of finding that says so, or null. */
function refusal(file: FileDiff, options: GateOptions): { why: string; kind: string } | null {
  const policy = (why: string) => ({ why, kind: "patch-policy" });
  for (const path of [file.oldPath, file.newPath]) {
    if (path === null) continue;
    const why = forbiddenReason(path);
    if (why) return policy(`${why}: ${JSON.stringify(path)}`);
  }
  const path = filePath(file);
  if (file.binary) return policy(`binary patch for ${path}`);
  for (const mode of [file.oldMode, file.newMode]) {
    if (mode === undefined || ALLOWED_MODES.has(mode)) continue;
    if (mode === "120000") return policy(`symlink ${path}`);
    if (mode === "160000") return policy(`gitlink (submodule) ${path}`);
    return policy(`file mode ${mode} for ${path}`);
  }
  // Added, renamed and copied files all bring a new name into the tree.
  if (file.newPath !== null && file.status !== "modified" && file.status !== "deleted") {
    const shadow = shadowedModule(file.newPath, options);
    if (shadow) return policy(`new module ${file.newPath} shadows the installed module "${shadow}"`);
    const copy = shadowedTestImport(file.newPath, options) ?? shadowedSibling(file.newPath, options);
    if (copy)
      return {
        why: `new module ${file.newPath} would be imported by the tests instead of ${copy}`,
        kind: "module-shadowing",
      };
  }
  return null;
}

/** The module the tests import that a newly created file would stand in for, described, or null. */
function shadowedTestImport(path: string, options: GateOptions): string | null {
  const imports = options.testImports;
  if (!imports || !path.endsWith(".py")) return null;
  for (const root of pathRoots(options.policy)) {
    const prefix = root ? `${root}/` : "";
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf("/");
    const name = slash < 0 ? rest.replace(/\.py$/, "") : rest.slice(0, slash);
    const entry = prefix + (slash < 0 ? rest : name);
    if (options.pristineHas?.(entry)) continue;
    const home = imports.repository[name];
    if (home !== undefined && home !== root)
      return `the repository's module "${name}"${home ? ` (in ${home}/)` : ""}`;
    if (home === undefined && imports.others.includes(name)) return `the module "${name}"`;
  }
  return null;
}

const JS_EXTENSIONS = [".js", ".cjs", ".mjs", ".json", ".node", ".ts"];

/**
 * The existing file a new one would be loaded instead of, where the two import the same name: a
 * package directory `x/` beside the module `x.py` (Python looks for the package first), an
 * extensionless `x` beside `x.js` and a file `x.js` beside the directory `x/` (Node tries the exact
 * name, then extensions, then the directory).
 */
function shadowedSibling(path: string, options: GateOptions): string | null {
  const has = options.pristineHas;
  if (!has) return null;
  const parts = path.split("/");
  for (let i = 0; i < parts.length - 1; i++) {
    const dir = parts.slice(0, i + 1).join("/");
    if (!has(dir) && path.endsWith(".py") && has(`${dir}.py`)) return `the module ${dir}.py`;
  }
  const last = parts.at(-1)!;
  if (!last.includes(".")) {
    const twin = JS_EXTENSIONS.map((ext) => `${path}${ext}`).find(has);
    if (twin) return `the module ${twin}`;
  }
  const stem = path.replace(/\.[cm]?[jt]s$/, "");
  if (stem !== path && has(stem) && !has(path)) return `the directory module ${stem}/`;
  return null;
}

/** The root and every directory on the way to a hidden test: where pytest may put a test's directory on sys.path. */
function pathRoots(policy: GateOptions["policy"]): string[] {
  const roots = new Set<string>([""]);
  for (const dir of policy.importRoots) {
    const parts = dir ? dir.split("/") : [];
    for (let i = 1; i <= parts.length; i++) roots.add(parts.slice(0, i).join("/"));
  }
  return [...roots];
}

/** The toolchain module a newly created file would shadow on sys.path, or null. */
function shadowedModule(path: string, options: GateOptions): string | null {
  const modules = options.shadowModules;
  if (!modules?.size) return null;
  for (const root of options.policy.importRoots) {
    const prefix = root ? `${root}/` : "";
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf("/");
    const head = slash < 0 ? rest : rest.slice(0, slash);
    const name = slash < 0 ? head.replace(/\.py$/, "") : head;
    if (slash < 0 && !head.endsWith(".py")) continue;
    if (!modules.has(name)) continue;
    const entry = prefix + head;
    if (options.pristineHas?.(entry)) continue;
    return name;
  }
  return null;
}
