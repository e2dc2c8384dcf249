import { execFile } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { promisify } from "node:util";
import type { EnvironmentSpec } from "../../contracts/task-spec.ts";
import { findTool } from "../../sandbox/host-tools.ts";
import { BuildCache } from "./cache.ts";
import { digestOf, fileDigest } from "./digest.ts";
import { PULLED_REF, pullImage } from "./image-pull.ts";
import { EnvironmentError, type PreparedEnvironment } from "./types.ts";

const run = promisify(execFile);
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

export type RootSourceSpec = Extract<EnvironmentSpec, { kind: "rootfs" | "oci" }>;

/** A root filesystem ready to bind: the directory, the digest it was built under, whether built now. */
export interface ReadyRoot {
  root: string;
  digest: string;
  built: boolean;
}

/**
 * Turns a rootfs or oci spec into a root filesystem directory:
 * - **rootfs directory**: used where it is, read-only (digest: its real path);
 * - **rootfs tarball** (`docker export`, `mmdebstrap … out.tar`): extracted once per content digest;
 * - **oci**: an OCI image layout is unpacked with `umoci raw unpack` once per manifest digest; a
 *   `docker save` archive is first copied into a layout with `skopeo copy docker-archive:…`; an
 *   `image` reference (`docker://…`, `oci-archive:…`) is copied into a layout in the cache once
 *   (image-pull.ts), then unpacked the same way.
 * Device nodes in archives are skipped (the sandbox makes its own /dev).
 */
export async function readyRoot(
  spec: RootSourceSpec,
  taskDir: string,
  cache: BuildCache,
  log?: (message: string) => void,
  /** Where the spec is in task.json, for errors (`environment`, or `environment.base` for setup). */
  field = "environment",
): Promise<ReadyRoot> {
  if (spec.kind === "oci" && spec.image !== undefined) {
    const where = { file: join(taskDir, "task.json"), field: `${field}.image` };
    const layout = await pullImage(spec.image, { taskDir, cache, log, where });
    return unpackLayout(layout, pickManifest(layout, PULLED_REF), spec.image, cache, log);
  }
  if (spec.path === undefined) throw new EnvironmentError(`${field} names neither path nor image`);
  const path = isAbsolute(spec.path) ? spec.path : resolve(taskDir, spec.path);
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) throw new EnvironmentError(`${field}.path ${path} does not exist`);
  if (spec.kind === "rootfs") {
    if (info.isDirectory()) {
      const root = realpathSync(path);
      checkRoot(root, path);
      return { root, digest: digestOf("rootfs-dir", root), built: false };
    }
    const digest = digestOf("rootfs-tar", fileDigest(path));
    const { dir, built } = await cache.get(digest, async (into) => {
      log?.(`extracting root filesystem ${path}`);
      await extractTar(path, join(into, "rootfs"));
    });
    const root = join(dir, "rootfs");
    checkRoot(root, path);
    return { root, digest, built };
  }
  const { layout, ref, digest, cleanup } = await ociLayout(spec, path, info.isDirectory(), cache.dir);
  try {
    return await unpackLayout(
      layout,
      { ref, digest },
      `${spec.path}${spec.ref ? `:${spec.ref}` : ""}`,
      cache,
      log,
    );
  } finally {
    await cleanup();
  }
}

/** The image `ref` of an OCI layout unpacked with `umoci raw unpack`, once per manifest digest. */
async function unpackLayout(
  layout: string,
  { ref, digest }: { ref: string; digest: string },
  what: string,
  cache: BuildCache,
  log?: (message: string) => void,
): Promise<ReadyRoot> {
  const { dir, built } = await cache.get(digestOf("oci", digest), async (into) => {
    log?.(`unpacking image ${what} (${digest.slice(0, 19)})`);
    const umoci = requireTool("umoci", "umoci");
    await tool(
      umoci,
      ["raw", "unpack", "--image", `${layout}:${ref}`, join(into, "rootfs")],
      "umoci raw unpack",
    );
  });
  const root = join(dir, "rootfs");
  checkRoot(root, what);
  return { root, digest: digestOf("oci", digest), built };
}

function checkRoot(root: string, from: string): void {
  for (const name of ["usr", "etc"]) {
    if (!lstatSync(join(root, name), { throwIfNoEntry: false })?.isDirectory())
      throw new EnvironmentError(`${from} is not a root filesystem: it has no ${name}/ directory`);
  }
}

async function extractTar(archive: string, dest: string): Promise<void> {
  mkdirSync(dest, { mode: 0o755 });
  await tool(
    "tar",
    [
      "-x",
      "-f",
      archive,
      "-C",
      dest,
      "--numeric-owner",
      "--same-owner",
      "--exclude=./dev/*",
      "--exclude=dev/*",
    ],
    `tar -x ${archive}`,
  );
}

/**
 * The OCI layout to unpack, the image's ref in it and its manifest digest. A docker-save archive is
 * copied into a layout next to the cache first (skopeo), keyed by the archive's digest.
 */
async function ociLayout(
  spec: Extract<EnvironmentSpec, { kind: "oci" }>,
  path: string,
  isDir: boolean,
  scratch: string,
): Promise<{ layout: string; ref: string; digest: string; cleanup: () => Promise<void> }> {
  if (isDir) {
    const { ref, digest } = pickManifest(path, spec.ref);
    return { layout: path, ref, digest, cleanup: async () => {} };
  }
  const skopeo = requireTool("skopeo", "skopeo");
  const layout = join(scratch, `.layout-${fileDigest(path).slice(0, 24)}`);
  const ref = "gagar";
  const source = spec.ref ? `docker-archive:${path}:${spec.ref}` : `docker-archive:${path}`;
  mkdirSync(scratch, { recursive: true, mode: 0o755 });
  await tool(skopeo, ["copy", "--quiet", source, `oci:${layout}:${ref}`], `skopeo copy ${source}`);
  const { digest } = pickManifest(layout, ref);
  return {
    layout,
    ref,
    digest,
    cleanup: () => run("rm", ["-rf", layout], { env: TOOL_ENV }).then(() => undefined),
  };
}

interface OciIndex {
  manifests?: { digest?: string; annotations?: Record<string, string> }[];
}

/** The manifest named `ref` in an OCI layout's index.json (or its only manifest). */
function pickManifest(layout: string, ref: string | undefined): { ref: string; digest: string } {
  let index: OciIndex;
  try {
    index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8")) as OciIndex;
  } catch (e) {
    throw new EnvironmentError(`${layout} is not an OCI image layout (index.json: ${(e as Error).message})`);
  }
  const manifests = (index.manifests ?? []).map((m) => ({
    ref: m.annotations?.["org.opencontainers.image.ref.name"],
    digest: m.digest ?? "",
  }));
  const found = ref
    ? manifests.find((m) => m.ref === ref)
    : manifests.length === 1
      ? manifests[0]
      : undefined;
  if (!found?.ref || !found.digest) {
    const refs = manifests.map((m) => m.ref ?? "(unnamed)").join(", ");
    throw new EnvironmentError(
      ref
        ? `image ${layout} has no manifest named "${ref}" (it has: ${refs || "none"})`
        : `image ${layout} holds ${manifests.length} manifests (${refs}); name one with environment.ref`,
    );
  }
  return { ref: found.ref, digest: found.digest };
}

function requireTool(name: "umoci" | "skopeo", pkg: string): string {
  const path = findTool(name);
  if (!path) throw new EnvironmentError(`${name} is not installed (apt-get install ${pkg})`);
  return path;
}

async function tool(file: string, args: string[], what: string): Promise<void> {
  try {
    await run(file, args, { env: TOOL_ENV, maxBuffer: 16 * 2 ** 20 });
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? (e as Error).message).trim();
    throw new EnvironmentError(`${what} failed: ${stderr.split("\n").slice(-5).join(" | ")}`);
  }
}

/** What rootfs and oci environments do with their spec: a ready root, timed when built now. */
export async function prepareRoot(
  spec: RootSourceSpec,
  context: { cacheDir: string; taskDir: string; log?: (message: string) => void },
): Promise<PreparedEnvironment> {
  const started = performance.now();
  const ready = await readyRoot(spec, context.taskDir, new BuildCache(context.cacheDir), context.log);
  return {
    kind: spec.kind,
    digest: ready.digest,
    root: ready.root,
    buildMs: ready.built ? performance.now() - started : 0,
    cached: !ready.built,
  };
}
