import { isDeepStrictEqual } from "node:util";
import type { Finding } from "../../contracts/finding.ts";
import { formatDiff, renderedRecord } from "../../diff/format.ts";
import { DiffParseError, type FileDiff, filePath, parseDiff } from "../../diff/parse.ts";
import { InvariantError } from "../../errors.ts";
import type { GateRefusal, GateRefusalRule } from "./gate-refusals.ts";
import { forbiddenReason, type PathPolicy, type Protection } from "./protected-paths.ts";

/**
 * The static patch gate: every check that can be made on the patch text, before anything runs.
 *
 * Contract: the gate accepts exactly what `git apply` accepts at the task's base, minus the refusals
 * documented in gate-refusals.ts (and docs/security.md §4.2); a test runs it against real git over
 * generated patch forms, both ways (patch-gate-git.test.ts).
 * - The patch is read by a port of git's own reader (diff/parse.ts): the file diffs git finds, the
 *   names it reads, the hunks it counts. Whatever that reader refuses is refused here, with git's
 *   message (`git-refuses`); a blank patch is the no-op (git's `--allow-empty`).
 * - Then size, file and hunk caps (B7); forbidden paths (`..`, absolute, `.git/`, bytecode, native
 *   libraries, `.pth`, sitecustomize/usercustomize, packaging metadata; see protected-paths.ts),
 *   symlinks (mode 120000), gitlinks (160000), other modes, binary sections, new top-level Python
 *   modules that would shadow the toolchain (C6: a `pytest/` package at the root would replace the test
 *   runner itself), and new modules the tests would import instead of the repository's own or of a
 *   module they import (`module-shadowing`, security.md §7) are refused;
 * - changes to protected paths are **stripped** (default) or **refused**, with a finding each.
 * `git apply` gets the surviving file diffs rendered canonically (diff/format.ts), never the candidate's
 * own text: it applies exactly the paths and modes checked here. What only the tree decides (context
 * that does not match, a file missing or already there) git decides on that rendering exactly as it
 * would on the original. An empty result is legal: the tests then run on the unchanged repository.
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
  /**
   * Whether the pristine repository has this path (file or directory): shadowing only counts for new
   * names, and a plain diff that may create its file (`createsIfAbsent`) creates it only where it is missing.
   */
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
  | { ok: false; reason: string; rule: GateRefusalRule; findings: Finding[] };

const ALLOWED_MODES = new Set(["100644", "100755"]);

export function gatePatch(patch: string, options: GateOptions): GateResult {
  const limits = { ...DEFAULT_GATE_LIMITS, ...options.limits };
  const bytes = Buffer.byteLength(patch, "utf8");
  if (bytes > limits.maxBytes)
    return reject("size-cap", `patch is ${bytes} bytes; the limit is ${limits.maxBytes}`);
  if (patch.includes("\0")) return reject("nul-byte", "patch holds a NUL byte");
  let raw: FileDiff[];
  try {
    raw = parseDiff(patch);
  } catch (e) {
    if (e instanceof DiffParseError) return reject("git-refuses", `unparseable patch: ${e.message}`);
    throw e;
  }
  if (!raw.length && !/^[\t\n\v\f\r ]*$/.test(patch))
    return reject("git-refuses", "unparseable patch: no file diff in it (git: No valid patches in input)");
  if (raw.length > limits.maxFiles) {
    return reject("file-cap", `patch touches ${raw.length} files; the limit is ${limits.maxFiles}`);
  }
  const hunks = raw.reduce((n, f) => n + f.hunks.length, 0);
  if (hunks > limits.maxHunks)
    return reject("hunk-cap", `patch has ${hunks} hunks; the limit is ${limits.maxHunks}`);

  // What git gets: every file diff but those that touch a protected path (stripped, or under the
  // reject policy refused). Only those decide what exists when a later one may create its file.
  const protections = raw.map((file) => protectedPath(file, options.policy));
  const keptRaw = raw.filter((_, i) => !protections[i]);
  const resolved = resolveCreations(keptRaw, options.pristineHas);
  let next = 0;
  const files = raw.map((file, i) => (protections[i] ? file : resolved[next++]!));
  const kept = files.filter((_, i) => !protections[i]);
  // A path the patch deletes or moves away is gone when the new files are imported (a module
  // turned into a package of the same name is a refactor, not a shadow).
  const removed = new Set(kept.filter(movesAway).map((f) => f.oldPath));
  const pristineHas = options.pristineHas;
  const afterPatch: GateOptions = {
    ...options,
    ...(pristineHas && { pristineHas: (p: string) => !removed.has(p) && pristineHas(p) }),
  };
  for (const file of files) {
    const refused = refusal(file, afterPatch);
    if (refused) {
      return reject(refused.rule, refused.why, {
        kind: refused.kind,
        severity: "critical",
        file: filePath(file),
        message: `patch rejected: ${refused.why}`,
      });
    }
  }

  const action = options.protectedPolicy === "reject" ? "rejected" : "stripped";
  const findings: Finding[] = [];
  const stripped: string[] = [];
  files.forEach((file, i) => {
    const hit = protections[i];
    if (!hit) return;
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
  });
  if (options.protectedPolicy === "reject" && findings.length) {
    return {
      ok: false,
      reason: `patch changes protected paths: ${stripped.join(", ")}`,
      rule: "protected-path",
      findings,
    };
  }
  return { ok: true, patch: canonical(keptRaw), files: kept, findings, stripped };
}

/** The first of a file diff's paths that is protected, with its protection, or null. */
function protectedPath(file: FileDiff, policy: PathPolicy): { path: string; protection: Protection } | null {
  for (const path of new Set([file.oldPath, file.newPath])) {
    if (path === null) continue;
    const protection = policy.protectionOf(path);
    if (protection) return { path, protection };
  }
  return null;
}

/** Whether applying the file diff removes its old path (git removes it for a rename and for a modification that writes another name). */
function movesAway(file: FileDiff): boolean {
  return (
    file.status === "deleted" ||
    file.status === "renamed" ||
    (file.status === "modified" && file.oldPath !== file.newPath)
  );
}

/**
 * What git will decide at the base for each plain diff that creates its file only if it is missing
 * (check_preimage): a path an earlier file diff of the patch wrote, or took away, counts as there; any
 * other counts as there when the pristine tree has it. Without a tree the question stays open.
 */
function resolveCreations(files: readonly FileDiff[], pristineHas: GateOptions["pristineHas"]): FileDiff[] {
  if (!pristineHas) return [...files];
  const seen = new Set<string>();
  return files.map((file) => {
    let resolved = file;
    if (file.createsIfAbsent) {
      const { createsIfAbsent: _, ...definite } = file;
      const name = file.newPath!;
      resolved =
        seen.has(name) || pristineHas(name) ? definite : { ...definite, status: "added", oldPath: null };
    }
    if (resolved.newPath !== null) seen.add(resolved.newPath);
    if (resolved.oldPath !== null && (resolved.newPath === null || resolved.status === "renamed"))
      seen.add(resolved.oldPath);
    return resolved;
  });
}

/** The kept files as git will read them; reading them back must give the very same records. */
function canonical(files: FileDiff[]): string {
  const text = formatDiff(files);
  if (!isDeepStrictEqual(parseDiff(text), files.map(renderedRecord)))
    throw new InvariantError("the gate's canonical patch does not parse back to the files it checked");
  return text;
}

function reject(rule: GateRefusalRule, reason: string, finding?: Finding): GateResult {
  return { ok: false, reason, rule, findings: finding ? [finding] : [] };
}

/** Why this file diff makes the patch unacceptable, the rule and the kind of finding that says so, or null. */
function refusal(
  file: FileDiff,
  options: GateOptions,
): { why: string; rule: GateRefusal; kind: string } | null {
  const policy = (rule: GateRefusal, why: string) => ({ why, rule, kind: "patch-policy" });
  for (const path of [file.oldPath, file.newPath]) {
    if (path === null) continue;
    const why = forbiddenReason(path);
    if (why) return policy("forbidden-path", `${why}: ${JSON.stringify(path)}`);
  }
  const path = filePath(file);
  if (file.binary) return policy("binary", `binary patch for ${path}`);
  for (const mode of [file.oldMode, file.newMode]) {
    if (mode === undefined || ALLOWED_MODES.has(mode)) continue;
    if (mode === "120000") return policy("symlink", `symlink ${path}`);
    if (mode === "160000") return policy("gitlink", `gitlink (submodule) ${path}`);
    return policy("file-mode", `file mode ${mode} for ${path}`);
  }
  if (file.anomaly) return policy("odd-header", `${file.anomaly}: git's own diffs never say that`);
  const created = bringsNewName(file);
  if (created !== null) {
    const shadow = shadowedModule(created, options);
    if (shadow)
      return policy("toolchain-shadowing", `new module ${created} shadows the installed module "${shadow}"`);
    const copy = shadowedTestImport(created, options) ?? shadowedSibling(created, options);
    if (copy)
      return {
        why: `new module ${created} would be imported by the tests instead of ${copy}`,
        rule: "module-shadowing",
        kind: "module-shadowing",
      };
  }
  return null;
}

/**
 * The name a file diff brings into the tree, or null: an added, renamed or copied file's; a
 * modification's that writes another name than it reads; a plain diff's that git creates if missing
 * (unless the tree is known to have it).
 */
function bringsNewName(file: FileDiff): string | null {
  if (file.newPath === null) return null;
  if (file.status === "added" || file.status === "renamed" || file.status === "copied") return file.newPath;
  if (file.status === "modified" && (file.oldPath !== file.newPath || file.createsIfAbsent))
    return file.newPath;
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
