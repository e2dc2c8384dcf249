import type { Finding } from "../contracts/finding.ts";
import { DiffParseError, type FileDiff, filePath, parseDiff } from "../diff/parse.ts";
import { forbiddenReason, type PathPolicy } from "./protected-paths.ts";

/**
 * The static patch gate: every check that can be made on the patch text, before anything runs.
 *
 * The patch is cut into one segment per `diff --git` header (exactly where `parseDiff` cuts it, so the
 * gate and `git apply` see the same files) and each segment is parsed on its own. Text before the first
 * header is dropped. Then:
 * - size, file and hunk caps (B7);
 * - **reject** forbidden paths (`..`, absolute, `.git/`, bytecode, native libraries, `.pth`,
 *   sitecustomize/usercustomize; see protected-paths.ts), symlinks (mode 120000), gitlinks (160000),
 *   binary hunks, and new top-level Python modules that would shadow the toolchain (C6: a `pytest/`
 *   package at the root would replace the test runner itself);
 * - **strip** (default) or **reject** segments touching protected paths, with a finding each.
 * The surviving segments, re-joined, are the patch `git apply` gets. An empty result is legal: the
 * tests then run on the unchanged repository.
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
}

export type GateResult =
  | { ok: true; patch: string; files: FileDiff[]; findings: Finding[]; stripped: string[] }
  | { ok: false; reason: string; findings: Finding[] };

const ALLOWED_MODES = new Set(["100644", "100755"]);

export function gatePatch(patch: string, options: GateOptions): GateResult {
  const limits = { ...DEFAULT_GATE_LIMITS, ...options.limits };
  const bytes = Buffer.byteLength(patch, "utf8");
  if (bytes > limits.maxBytes) return reject(`patch is ${bytes} bytes; the limit is ${limits.maxBytes}`);
  let segments: Segment[];
  try {
    segments = splitSegments(patch);
  } catch (e) {
    if (e instanceof DiffParseError) return reject(`unparseable patch: ${e.message}`);
    throw e;
  }
  if (segments.length > limits.maxFiles) {
    return reject(`patch touches ${segments.length} files; the limit is ${limits.maxFiles}`);
  }
  const hunks = segments.reduce((n, s) => n + s.file.hunks.length, 0);
  if (hunks > limits.maxHunks) return reject(`patch has ${hunks} hunks; the limit is ${limits.maxHunks}`);

  for (const { file } of segments) {
    const why = refusal(file, options);
    if (why) {
      return reject(why, {
        kind: "patch-policy",
        severity: "critical",
        file: filePath(file),
        message: `patch rejected: ${why}`,
      });
    }
  }

  const findings: Finding[] = [];
  const kept: Segment[] = [];
  const stripped: string[] = [];
  for (const segment of segments) {
    const { file } = segment;
    const paths = [...new Set([file.oldPath, file.newPath].filter((p): p is string => p !== null))];
    const hit = paths
      .map((p) => ({ path: p, protection: options.policy.protectionOf(p) }))
      .find((h) => h.protection);
    if (!hit?.protection) {
      kept.push(segment);
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
  return {
    ok: true,
    patch: kept.map((s) => s.text).join(""),
    files: kept.map((s) => s.file),
    findings,
    stripped,
  };
}

function reject(reason: string, finding?: Finding): GateResult {
  return { ok: false, reason, findings: finding ? [finding] : [] };
}

/** Why this file diff makes the patch unacceptable, or null. */
function refusal(file: FileDiff, options: GateOptions): string | null {
  for (const path of [file.oldPath, file.newPath]) {
    if (path === null) continue;
    const why = forbiddenReason(path);
    if (why) return `${why}: ${JSON.stringify(path)}`;
  }
  const path = filePath(file);
  if (file.binary) return `binary patch for ${path}`;
  for (const mode of [file.oldMode, file.newMode]) {
    if (mode === undefined || ALLOWED_MODES.has(mode)) continue;
    if (mode === "120000") return `symlink ${path}`;
    if (mode === "160000") return `gitlink (submodule) ${path}`;
    return `file mode ${mode} for ${path}`;
  }
  // Added, renamed and copied files all bring a new name into the tree.
  if (file.newPath !== null && file.status !== "modified" && file.status !== "deleted") {
    const shadow = shadowedModule(file.newPath, options);
    if (shadow) return `new module ${file.newPath} shadows the installed module "${shadow}"`;
  }
  return null;
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

interface Segment {
  text: string;
  file: FileDiff;
}

/** Cuts a patch into per-file segments, each parsed by parseDiff into exactly one FileDiff. */
export function splitSegments(patch: string): Segment[] {
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (line.startsWith("diff --git ")) starts.push(i);
  });
  if (starts.length === 0) {
    parseDiff(patch); // throws on hunks without a header; free text alone is an empty patch
    return [];
  }
  const segments: Segment[] = [];
  starts.forEach((start, k) => {
    const end = starts[k + 1] ?? lines.length;
    segments.push(parseSegment(lines.slice(start, end), start));
  });
  return segments;
}

function parseSegment(lines: string[], offset: number): Segment {
  const attempt = (body: string[]): Segment => {
    const text = `${body.join("\n")}\n`;
    const files = parseDiff(text);
    if (files.length !== 1)
      throw new DiffParseError(offset + 1, "expected exactly one file per 'diff --git' header");
    return { text, file: files[0]! };
  };
  try {
    return attempt(lines);
  } catch (e) {
    if (!(e instanceof DiffParseError)) throw e;
    // Blank lines after the last hunk (common in hand-edited or model-written patches) are noise.
    let end = lines.length;
    while (end > 1 && lines[end - 1]!.trim() === "") end--;
    if (end === lines.length) throw relocate(e, offset);
    try {
      return attempt(lines.slice(0, end));
    } catch (e2) {
      throw e2 instanceof DiffParseError ? relocate(e2, offset) : e2;
    }
  }
}

function relocate(e: DiffParseError, offset: number): DiffParseError {
  const message = e.message.replace(/^patch line \d+: /, "");
  return new DiffParseError(e.line + offset, message);
}
