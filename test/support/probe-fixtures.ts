/**
 * The behavioural-probe fixtures (test/fixtures/probe/<name>/): small repositories with hidden tests,
 * a reference fix and candidate fixes that all pass the hidden tests — hard-codings of several shapes
 * that the probes must catch, and honest alternatives they must leave alone.
 *
 *   fixture.json   runner, statement, and per candidate {id, expect: "critical" | "clean", shape?, note}
 *   repo/          the repository at the base commit (with its visible tests)
 *   tests/         hidden tests, at their workspace paths
 *   edits.txt      per candidate (and `### reference`), the fix as search/replace blocks
 *                  (the format of test/fixtures/grade/synthetic/build.ts)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTaskPack, type TaskPack } from "../../src/verify/pack/task-pack.ts";
import { applyEdits, parseEdits } from "../fixtures/grade/synthetic/build.ts";
import { patchOf, writeTask } from "./task-fixture.ts";

export const PROBE_FIXTURES = fileURLToPath(new URL("../fixtures/probe", import.meta.url));

export interface ProbeFixtureCandidate {
  id: string;
  expect: "critical" | "clean";
  shape?: string;
  note: string;
}

export interface ProbeFixture {
  name: string;
  runner: string;
  statement: string;
  candidates: ProbeFixtureCandidate[];
  /** Hidden test modules by workspace path. */
  hidden: Map<string, string>;
  /** The workspace tree of the base (null), the reference or a candidate, hidden tests laid over it. */
  tree(subject: string | null): Map<string, string>;
}

export function readTree(root: string, dir = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [p, t] of readTree(root, rel)) out.set(p, t);
    else out.set(rel, readFileSync(join(root, rel), "utf8"));
  }
  return out;
}

export function loadProbeFixture(name: string): ProbeFixture {
  const dir = join(PROBE_FIXTURES, name);
  const spec = JSON.parse(readFileSync(join(dir, "fixture.json"), "utf8")) as {
    runner: string;
    statement: string;
    candidates: ProbeFixtureCandidate[];
  };
  const editsFile = join(dir, "edits.txt");
  const edits = parseEdits(readFileSync(editsFile, "utf8"), editsFile);
  for (const id of ["reference", ...spec.candidates.map((c) => c.id)])
    if (!edits.has(id)) throw new Error(`${editsFile}: no ### ${id} section`);
  const hidden = readTree(join(dir, "tests"));
  const base = readTree(join(dir, "repo"));
  return {
    name,
    ...spec,
    hidden,
    tree(subject) {
      const files = new Map(base);
      if (subject !== null) applyEdits(files, edits.get(subject)!, `${editsFile} (${subject})`);
      for (const [path, text] of hidden) files.set(path, text);
      return files;
    },
  };
}

export function probeFixtureNames(): string[] {
  return readdirSync(PROBE_FIXTURES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Writes `files` as the whole content of `ws`. */
export function writeTree(ws: string, files: ReadonlyMap<string, string>): void {
  rmSync(ws, { recursive: true, force: true });
  for (const [path, content] of files) {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), content);
  }
}

/**
 * A probe fixture as a task pack under `root` (its hidden tests, its reference fix), and its
 * candidates' patches of the pack's repository by id.
 */
export function probeFixturePack(
  root: string,
  name: string,
  spec: { failToPass: string[]; test?: Record<string, unknown> },
): { pack: TaskPack; patches: Map<string, string>; fixture: ProbeFixture } {
  const fixture = loadProbeFixture(name);
  const base = readTree(join(PROBE_FIXTURES, name, "repo"));
  const changed = (subject: string) =>
    Object.fromEntries(
      [...fixture.tree(subject)].filter(
        ([path, text]) => !fixture.hidden.has(path) && base.get(path) !== text,
      ),
    );
  const repo = Object.fromEntries(base);
  const dir = writeTask(join(root, "packs"), {
    id: name,
    spec: {
      statement: fixture.statement,
      language: fixture.runner === "pytest" ? "python" : "javascript",
      test: { runner: fixture.runner, ...spec.test },
      failToPass: spec.failToPass,
      passToPass: [],
      timeoutSec: 60,
    },
    repo,
    tests: Object.fromEntries(fixture.hidden),
    reference: changed("reference"),
  });
  const patches = new Map(fixture.candidates.map((c) => [c.id, patchOf(repo, changed(c.id))]));
  return { pack: loadTaskPack(dir), patches, fixture };
}
