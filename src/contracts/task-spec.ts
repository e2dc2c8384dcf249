import { z } from "zod";
import { parseImageReference } from "./image-reference.ts";

/**
 * `tasks/<id>/task.json` of a task pack. Beside it: `repo/` (the repository at the base commit),
 * `tests/` (hidden tests, laid over the workspace at the same relative paths after the patch),
 * and optionally `reference.patch`.
 *
 * Two forms load. **schemaVersion 2** names the test runner (`test.runner`) and the environment the
 * task runs in (`environment`). **schemaVersion 1** (no runner, no environment) is read as it always
 * was: pytest for Python, node:test otherwise, on the host's toolchain. Both come out as `TaskSpec`.
 */

/** Test runner adapters (src/verify/runners); a task names one. */
export const TEST_RUNNERS = ["pytest", "node:test", "jest", "mocha", "vitest", "junit"] as const;
export type TestRunnerName = (typeof TEST_RUNNERS)[number];

/** What a passToPass test absent from every report counts as (task.json `missingPassToPass`). */
export const MISSING_PASS_TO_PASS = ["fail", "ignore"] as const;
export type MissingPassToPass = (typeof MISSING_PASS_TO_PASS)[number];

const Id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' and '-' only");
const Argv = z.array(z.string().min(1)).min(1);
const EnvVars = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"),
  z.string(),
);

/** A skopeo image reference (image-reference.ts), refused with what is wrong with it. */
const ImageReferenceText = z.string().superRefine((text, ctx) => {
  const parsed = parseImageReference(text);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
});

/** A root filesystem the sandbox uses instead of the host's /usr (rootfs and oci environments). */
const RootSource = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("rootfs"),
    /** A directory or a tar archive (`docker export`, mmdebstrap), relative to the task folder or absolute. */
    path: z.string().min(1),
  }),
  z
    .strictObject({
      kind: z.literal("oci"),
      /** An OCI image layout directory or a `docker save` archive, relative to the task folder or absolute. */
      path: z.string().min(1).optional(),
      /** The image in the layout (`ref.name` annotation, `name:tag` in a docker archive); default: the only one. */
      ref: z.string().min(1).optional(),
      /**
       * Instead of `path`: an image reference with a skopeo transport (`docker://REGISTRY/NAME:TAG`,
       * `oci:DIR:REF`, `oci-archive:FILE`, `docker-archive:FILE`, `dir:DIR`), copied once with `skopeo
       * copy` into the environment cache and taken from there afterwards.
       */
      image: ImageReferenceText.optional(),
    })
    .superRefine((spec, ctx) => {
      if (spec.path === undefined && spec.image === undefined)
        ctx.addIssue({
          code: "custom",
          message:
            'an oci environment names its image: "image" (a skopeo reference such as docker://docker.io/library/python:3.12-slim or oci-archive:image.tar) or "path" (an OCI image layout or a docker save archive)',
        });
      if (spec.path !== undefined && spec.image !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["image"],
          message: 'an oci environment names "path" or "image", not both',
        });
      if (spec.image !== undefined && spec.ref !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["ref"],
          message:
            '"ref" goes with "path"; with "image", the reference names the image itself (oci:DIR:REF, oci-archive:FILE:REF, docker-archive:FILE:NAME:TAG, docker://NAME:TAG)',
        });
    }),
]);

/** Where a task's tests run (src/verify/environments): built once per spec digest, read-only to candidates. */
export const EnvironmentSpec = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("host") }),
  RootSource,
  z.strictObject({
    kind: z.literal("setup"),
    /**
     * Trusted commands (the pack author's), run once at the workspace root in the sandbox WITH network
     * (`npm ci`, `pip install --target .deps -r requirements.txt`, a build); what they leave in the
     * repository becomes a read-only layer under every candidate's workspace.
     */
    commands: z.array(Argv).min(1),
    /** The root the commands and the tests run on (default: the host's). */
    base: RootSource.optional(),
    env: EnvVars.default({}),
    timeoutSec: z.number().positive().max(7200).default(900),
  }),
]);
export type EnvironmentSpec = z.output<typeof EnvironmentSpec>;

const Common = {
  id: Id,
  statement: z.string().min(1),
  /** Test ids that fail before the fix and must pass after it. */
  failToPass: z.array(z.string().min(1)).min(1),
  /** Test ids that pass before the fix and must keep passing. */
  passToPass: z.array(z.string().min(1)).default([]),
  timeoutSec: z.number().positive().max(3600).default(120),
  /** Glob patterns (relative to the repo root) a candidate patch must not touch, beyond the hidden tests. */
  protectedPaths: z.array(z.string().min(1)).default([]),
};

const TaskSpecV1 = z.strictObject({
  schemaVersion: z.literal(1),
  ...Common,
  language: z.enum(["python", "javascript", "typescript"]),
  test: z.strictObject({
    /**
     * argv run at the workspace root inside the sandbox. `{junit}` is replaced by the path the
     * JUnit XML report must be written to; `{tests}` by the hidden test files (relative paths).
     */
    command: Argv,
    report: z.literal("junit").default("junit"),
  }),
});

const TaskSpecV2 = z.strictObject({
  schemaVersion: z.literal(2),
  ...Common,
  /** Free text ("python", "javascript", "java"…): graders read it; it does not choose the runner. */
  language: z.string().min(1),
  test: z.strictObject({
    runner: z.enum(TEST_RUNNERS),
    /** argv with the runner's placeholders (`{junit}`, `{tests}`, `{reporter}`); default: the runner's own. */
    command: Argv.optional(),
    /** The junit runner's canary command (`{junit}`, `{pass}`, `{fail}`, `{message}`). */
    canaryCommand: Argv.optional(),
    /** Variables added to the sandbox's environment for the test run. */
    env: EnvVars.default({}),
    report: z.literal("junit").default("junit"),
  }),
  environment: EnvironmentSpec.default({ kind: "host" }),
  /**
   * What a passToPass test that no report mentions counts as: `fail` (every listed test must run and
   * pass; the default, and gagar's own rule) or `ignore` (only a reported failure counts, as in
   * SWE-PolyBench's harness; `gagar tasks import` sets it for tasks taken from that benchmark).
   * failToPass tests must always run and pass.
   */
  missingPassToPass: z.enum(MISSING_PASS_TO_PASS).default("fail"),
});

export const TaskSpec = z.discriminatedUnion("schemaVersion", [TaskSpecV1, TaskSpecV2]).transform(
  (spec): NormalizedTaskSpec =>
    spec.schemaVersion === 2
      ? spec
      : {
          ...spec,
          schemaVersion: 2,
          test: {
            runner: spec.language === "python" ? "pytest" : "node:test",
            command: spec.test.command,
            env: {},
            report: "junit",
          },
          environment: { kind: "host" },
          missingPassToPass: "fail",
        },
);

type NormalizedTaskSpec = z.output<typeof TaskSpecV2>;
/** A task.json of either form, as the verifier uses it (schemaVersion 2). */
export type TaskSpec = NormalizedTaskSpec;
/** What a writer (import) produces: the current form. */
export const TaskSpecInput = TaskSpecV2;
