import { readFileSync } from "node:fs";
import { z } from "zod";
import { EnvironmentSpec, TEST_RUNNERS } from "../../src/contracts/task-spec.ts";
import { InputError } from "../../src/errors.ts";
import { parseRecord } from "../../src/io/validate.ts";

/**
 * The real-code fidelity suite's manifest (manifest.json beside this file): which public repositories,
 * which of their upstream bug fixes become tasks, and how their tests run. No third-party code is in the
 * repository: the builder (upstream.ts) takes every tree and diff from the repository's own history at
 * test time, from a git bundle in GAGAR_REALCODE or, for a package whose history is its published
 * versions, from the npm registry.
 */

const Sha = z.string().regex(/^[0-9a-f]{40}$/, "a full 40-hex commit id");
const Version = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, "an exact published version");
const Glob = z.string().min(1);
const Id = z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, "lower-case letters, digits, '.' and '-'");

/** Where a repository's history comes from. */
const Source = z.discriminatedUnion("kind", [
  /** A git bundle of the repository in GAGAR_REALCODE, named `<owner>+<name>.bundle` (test/support/realcode.ts). */
  z.strictObject({ kind: z.literal("bundle") }),
  z.strictObject({
    kind: z.literal("npm"),
    /** A package whose published tarballs ship its own tests; its history is those tarballs in order. */
    package: z.string().min(1),
    /** Every version used, oldest first, with the registry's `dist.integrity` each must have. */
    versions: z
      .array(z.strictObject({ version: Version, integrity: z.string().startsWith("sha512-") }))
      .min(2),
  }),
]);

/** A commit of a bundle, or a published version of an npm source. */
const Revision = z.union([Sha, Version]);

const Task = z.strictObject({
  id: Id,
  /** The upstream fix: a commit, or the published version that shipped the fix. */
  fix: Revision,
  /** Its parent commit, or the version published just before. */
  base: Revision,
  /** What the fix is about, in a few words (the task statement adds the commit message). */
  about: z.string().min(1),
});

const Repository = z.strictObject({
  /** owner/name as the upstream project spells it. */
  name: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, "owner/name"),
  license: z.string().min(1),
  source: Source,
  language: z.enum(["python", "javascript", "typescript"]),
  runner: z.enum(TEST_RUNNERS),
  /** The test command with the runner's placeholders (default: the runner's own). */
  command: z.array(z.string().min(1)).min(1).optional(),
  environment: EnvironmentSpec.default({ kind: "host" }),
  /** Paths of tests, helpers and fixtures (globs, verify/gate/glob.ts): a fix's changes there are the hidden tests. */
  tests: z.array(Glob).min(1),
  /** Paths of the library's code (globs): a fix's changes there are the gold patch. */
  code: z.array(Glob).min(1),
  /** The whole-suite run: at which revision, and which files are the suite's test files. */
  suite: z.strictObject({ at: Revision, files: z.array(Glob).min(1) }),
  /** Per-test timeout the whole suite and the tasks get (task timeoutSec). */
  timeoutSec: z.number().int().positive().max(3600).default(300),
  tasks: z.array(Task).min(1),
});

export const FidelityManifest = z.strictObject({
  schemaVersion: z.literal(1),
  repositories: z.array(Repository).min(1),
});
export type FidelityManifest = z.output<typeof FidelityManifest>;
export type FidelityRepository = FidelityManifest["repositories"][number];
export type FidelityTask = FidelityRepository["tasks"][number];

export const MANIFEST_PATH = new URL("./manifest.json", import.meta.url);

/** Reads and checks the manifest: every problem names the file and the field. */
export function loadManifest(file: string): FidelityManifest {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError({ file }, `not valid JSON (${(e as Error).message})`);
  }
  const manifest = parseRecord(FidelityManifest, json, { file });
  const ids = new Map<string, string>();
  manifest.repositories.forEach((repo, r) => {
    const versions =
      repo.source.kind === "npm" ? new Set(repo.source.versions.map((v) => v.version)) : undefined;
    const checkRevision = (value: string, field: string) => {
      const isSha = Sha.safeParse(value).success;
      if (versions ? !versions.has(value) : !isSha)
        throw new InputError(
          { file, field },
          versions
            ? `"${value}" is not one of the source's versions`
            : `"${value}" is not a commit id (a bundle's revisions are full commit ids)`,
        );
    };
    checkRevision(repo.suite.at, `repositories.${r}.suite.at`);
    repo.tasks.forEach((task, t) => {
      const field = `repositories.${r}.tasks.${t}`;
      const other = ids.get(task.id);
      if (other)
        throw new InputError({ file, field: `${field}.id` }, `"${task.id}" is already used at ${other}`);
      ids.set(task.id, field);
      checkRevision(task.fix, `${field}.fix`);
      checkRevision(task.base, `${field}.base`);
    });
  });
  return manifest;
}

/** The environment variable that narrows a run of the suite to some repositories (names, comma-separated). */
export const ONLY_VARIABLE = "GAGAR_FIDELITY_ONLY";

/**
 * The manifest narrowed to the repositories `only` names (`owner/name`, comma-separated), or the whole
 * manifest when `only` is unset or blank. A name the manifest does not have is an error naming it, so a
 * typo cannot turn a run into one that checks nothing.
 */
export function selectRepositories(manifest: FidelityManifest, only: string | undefined): FidelityManifest {
  const names = (only ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) return manifest;
  const known = new Set(manifest.repositories.map((r) => r.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length)
    throw new InputError(
      { file: ONLY_VARIABLE },
      `no repository ${unknown.map((n) => `"${n}"`).join(", ")} in the manifest (it has ${[...known].join(", ")})`,
    );
  return { ...manifest, repositories: manifest.repositories.filter((r) => names.includes(r.name)) };
}
