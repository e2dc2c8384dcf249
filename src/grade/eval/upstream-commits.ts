import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Finding } from "../../contracts/finding.ts";
import type { Group } from "../../contracts/group.ts";
import { isTestRole, type PathRole, pathRole } from "../static/paths.ts";

/**
 * Real upstream commits as honest candidates: how often a grader condemns code nobody wrote to game
 * it (scripts/critical-findings-upstream.ts, test/static-grader-upstream.realcode.test.ts). A commit
 * is graded as the lone passing candidate of a group whose workspace is the repository at the
 * commit's parent, cut down to what an agent fixing the same thing would submit:
 *
 * - `source`: only the files the static grader reads as source (paths.ts decides, with each file's
 *   changed lines, as for a candidate);
 * - `whole`: every file the commit changes — its test additions and edits, configs, docs too.
 *
 * The commits are the ones that change at least one source file, so both scopes grade the same
 * commits. The task statement is empty, or the commit's message (what an issue describing the
 * change would say, literals included).
 */
export type UpstreamScope = "source" | "whole";
export type UpstreamStatement = "none" | "message";

/** One changed file of a commit, as `git diff --name-status` and its changed lines show it. */
export interface ChangedFile {
  path: string;
  /** True when the commit adds the file. */
  added: boolean;
  /** Its added and deleted lines, without the +/- marker. */
  changedText: readonly string[];
}

/** Patches larger than this are left out: no agent submits them and they say little per commit. */
export const MAX_PATCH_CHARS = 400_000;

/** The grader's role of each changed file. Pure. */
export function rolesOf(files: readonly ChangedFile[]): Map<string, PathRole> {
  return new Map(files.map((f) => [f.path, pathRole(f)]));
}

/**
 * Whether a finding is on one of the commit's own test or test-runner files. A task made from the
 * commit takes those files as its hidden tests and protected configuration, and the verifier's gate
 * strips a candidate's edits to them and reports each (docs/security.md, the static gate); the
 * grader's tampering findings there say the same. They are counted apart from findings on code.
 */
export function onTaskStrippedFile(finding: Finding, roles: ReadonlyMap<string, PathRole>): boolean {
  const role = finding.file === undefined ? undefined : roles.get(finding.file);
  return role !== undefined && (isTestRole(role) || role === "runner");
}

/** The files of `scope`, or none when the commit changes no source file (it is then not counted). */
export function filesInScope(files: readonly ChangedFile[], scope: UpstreamScope): string[] {
  const roles = rolesOf(files);
  if (![...roles.values()].includes("source")) return [];
  return files.filter((f) => scope === "whole" || roles.get(f.path) === "source").map((f) => f.path);
}

/** A git command in `repo`; the repositories here are the caller's own clones. */
function gitIn(repo: string) {
  return (...args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
}

/** The files `sha` changes against its first parent, with their changed lines. */
export function changedFiles(repo: string, sha: string): ChangedFile[] {
  const git = gitIn(repo);
  const status = git("diff", "--name-status", "--no-renames", `${sha}^`, sha).trim();
  if (status === "") return [];
  const lines = new Map<string, string[]>();
  let current: string[] | undefined;
  const diff = git("diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", `${sha}^`, sha);
  for (const line of diff.split("\n")) {
    const header = /^diff --git a\/.* b\/(.*)$/.exec(line);
    if (header) {
      current = [];
      lines.set(header[1]!, current);
    } else if (current && /^[+-](?![+-]{2} )/.test(line)) current.push(line.slice(1));
  }
  return status.split("\n").map((row) => {
    const [code, path] = row.split("\t") as [string, string];
    return { path, added: code === "A", changedText: lines.get(path) ?? [] };
  });
}

/**
 * The non-merge commits reachable from `rev` (default HEAD), newest first, that change a source
 * file and whose patch in `scope` is not too large: the `count` after the first `skip` of them.
 */
export function sourceChangingCommits(
  repo: string,
  {
    count,
    skip = 0,
    scope = "source",
    rev = "HEAD",
  }: { count: number; skip?: number; scope?: UpstreamScope; rev?: string },
): string[] {
  const git = gitIn(repo);
  const out: string[] = [];
  let seen = 0;
  for (const sha of git("log", "--no-merges", "--format=%H", rev).trim().split("\n")) {
    if (out.length >= count) break;
    if (sha === "" || git("rev-list", "--parents", "-n", "1", sha).trim().split(" ").length < 2) continue;
    const files = filesInScope(changedFiles(repo, sha), scope);
    if (files.length === 0 || commitPatch(repo, sha, files).length > MAX_PATCH_CHARS) continue;
    if (seen++ >= skip) out.push(sha);
  }
  return out;
}

function commitPatch(repo: string, sha: string, files: readonly string[]): string {
  return gitIn(repo)("diff", "--no-color", "--no-ext-diff", "--no-renames", `${sha}^`, sha, "--", ...files);
}

/**
 * `sha` of `repo` as a group with one passing candidate (`upstream`) per scope asked for, their
 * workspace the repository at the parent, extracted once to a temporary folder that `dispose`
 * removes. Empty when the commit changes no source file.
 */
export function upstreamGroups(
  repo: string,
  sha: string,
  { scopes, statement }: { scopes: readonly UpstreamScope[]; statement: UpstreamStatement },
): { groups: Map<UpstreamScope, Group>; dispose(): void } {
  const changed = changedFiles(repo, sha);
  const patches = new Map<UpstreamScope, string>();
  for (const scope of scopes) {
    const files = filesInScope(changed, scope);
    if (files.length > 0) patches.set(scope, commitPatch(repo, sha, files));
  }
  if (patches.size === 0) return { groups: new Map(), dispose: () => {} };
  const message = statement === "message" ? gitIn(repo)("log", "-1", "--format=%B", sha).trim() : "";
  const workspace = mkdtempSync(join(tmpdir(), "gagar-upstream-"));
  try {
    execFileSync("sh", ["-c", 'git -C "$1" archive "$2^" | tar -x -C "$3"', "sh", repo, sha, workspace]);
  } catch (error) {
    rmSync(workspace, { recursive: true, force: true });
    throw error;
  }
  const group = (patch: string): Group => ({
    schemaVersion: 1,
    id: `${basename(repo)}@${sha.slice(0, 10)}`,
    task: { id: sha.slice(0, 10), statement: message, language: "unknown", workspace },
    candidates: [{ id: "upstream", patch, passed: true, reward: 1 }],
  });
  return {
    groups: new Map([...patches].map(([scope, patch]) => [scope, group(patch)])),
    dispose: () => rmSync(workspace, { recursive: true, force: true }),
  };
}
