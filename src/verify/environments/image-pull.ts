import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { type ImageReference, parseImageReference } from "../../contracts/image-reference.ts";
import { formatLocation, type InputLocation } from "../../errors.ts";
import { findTool } from "../../sandbox/host-tools.ts";
import type { BuildCache } from "./cache.ts";
import { digestOf, fileDigest } from "./digest.ts";
import { EnvironmentError } from "./types.ts";

/** The name the copied image has in its cached layout. */
export const PULLED_REF = "gagar";

/** How long one `skopeo copy` may take before it is stopped (a stalled registry must not hang a session). */
const PULL_TIMEOUT_MS = 2 * 60 * 60_000;

/**
 * What skopeo may see of gagar's environment: the system PATH, and what a pull needs from the user's
 * setup — where registry logins are kept (skopeo's auth files under HOME / XDG_RUNTIME_DIR, or
 * REGISTRY_AUTH_FILE, DOCKER_CONFIG), proxies, CA certificates and the temp dir. Nothing else.
 */
const PASSED_THROUGH = [
  "HOME",
  "XDG_RUNTIME_DIR",
  "REGISTRY_AUTH_FILE",
  "DOCKER_CONFIG",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "TMPDIR",
];

/**
 * An `oci` environment's `image` (a skopeo reference) copied with `skopeo copy` into an OCI layout in the
 * environment cache, once: a `docker://` reference is keyed by the reference itself (pulled once, then
 * taken from the cache — pin `@sha256:…` to follow a moved tag, or remove the entry), a local one by the
 * reference and its content (the archive's bytes, the layout's index.json, the dir's manifest.json), so an
 * edited file is copied again. The copy goes to a temporary folder renamed into place when complete
 * (cache.ts): a failed or killed pull leaves nothing that looks finished. Returns the layout, holding
 * the image as `PULLED_REF`.
 */
export async function pullImage(
  image: string,
  context: { taskDir: string; cache: BuildCache; log?: (message: string) => void; where: InputLocation },
): Promise<string> {
  const fail = (message: string) => new EnvironmentError(`${formatLocation(context.where)}: ${message}`);
  const parsed = parseImageReference(image);
  if (!parsed.ok) throw fail(parsed.message);
  const { source, key } = sourceOf(parsed.ref, context.taskDir, fail);
  const skopeo = findTool("skopeo");
  const { dir } = await context.cache.get(digestOf("oci-image", ...key), async (into) => {
    if (!skopeo) throw fail("skopeo is not installed (apt-get install skopeo)");
    context.log?.(`copying image ${image} into the environment cache (skopeo copy)`);
    await copyImage(skopeo, source, `oci:${join(into, "layout")}:${PULLED_REF}`, (line) =>
      context.log?.(`  ${image}: ${redactCredentials(line)}`),
    ).catch((e: CopyFailure) => {
      throw fail(explainFailure(image, parsed.ref, e));
    });
  });
  return join(dir, "layout");
}

/** The reference skopeo is given (local paths made absolute) and the parts of its cache key. */
function sourceOf(
  ref: ImageReference,
  taskDir: string,
  fail: (message: string) => Error,
): { source: string; key: string[] } {
  if (ref.transport === "docker") {
    const source = `docker://${ref.name}`;
    return { source, key: [source] };
  }
  const path = isAbsolute(ref.path) ? ref.path : resolve(taskDir, ref.path);
  const source = `${ref.transport}:${path}${ref.selector !== undefined ? `:${ref.selector}` : ""}`;
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) throw fail(`${path} does not exist`);
  const wantsDir = ref.transport === "oci" || ref.transport === "dir";
  if (wantsDir !== info.isDirectory())
    throw fail(
      `${path} is ${wantsDir ? "not a directory" : "a directory, not a file"} (a ${ref.transport}: reference)`,
    );
  let content: string;
  if (!wantsDir) content = fileDigest(path);
  else {
    const index = join(path, ref.transport === "oci" ? "index.json" : "manifest.json");
    try {
      content = createHash("sha256").update(readFileSync(index)).digest("hex");
    } catch (e) {
      throw fail(
        `${path} is not ${ref.transport === "oci" ? "an OCI image layout" : "a skopeo dir: image"} (${(e as Error).message})`,
      );
    }
  }
  return { source, key: [source, content] };
}

interface CopyFailure {
  /** skopeo's own message (its `msg="…"`), or the last lines it printed. */
  message: string;
  timedOut?: boolean;
}

/** `skopeo copy source dest`, its progress lines handed to `progress` as they come. */
function copyImage(
  skopeo: string,
  source: string,
  dest: string,
  progress: (line: string) => void,
): Promise<void> {
  const env: Record<string, string> = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return new Promise((done, failed) => {
    const child = spawn(skopeo, ["copy", source, dest], { env, stdio: ["ignore", "pipe", "pipe"] });
    let pending = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split(/\r?\n|\r/);
      pending = lines.pop()!;
      for (const line of lines) if (line.trim()) progress(line.trim());
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-64 * 1024);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, PULL_TIMEOUT_MS);
    child.on("error", (e) => {
      clearTimeout(timer);
      failed({ message: e.message } satisfies CopyFailure);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (pending.trim()) progress(pending.trim());
      if (code === 0 && !timedOut) return done();
      failed({
        message: skopeoMessage(stderr) || `skopeo exited ${code ?? `on signal ${signal}`}`,
        timedOut,
      } satisfies CopyFailure);
    });
  });
}

/** skopeo's fatal `msg="…"` (logrus), unquoted; else its last lines. */
function skopeoMessage(stderr: string): string {
  const quoted = [...stderr.matchAll(/level=(?:fatal|error) msg="((?:[^"\\]|\\.)*)"/g)].pop()?.[1];
  if (quoted !== undefined) {
    try {
      return JSON.parse(`"${quoted}"`) as string;
    } catch {
      return quoted;
    }
  }
  return stderr.trim().split("\n").slice(-5).join(" | ");
}

const UNREACHABLE =
  /connection refused|no such host|network is unreachable|no route to host|i\/o timeout|TLS handshake timeout|connection reset|server misbehaving|temporary failure in name resolution|proxyconnect|context deadline exceeded|dial tcp/i;
const DENIED =
  /unauthorized|authentication required|access denied|requested access to the resource is denied|\b40[13]\b/i;
const MISSING = /manifest unknown|name unknown|not found|\b404\b/i;

/** What went wrong, in words: for a registry, whether it could be reached at all. */
function explainFailure(image: string, ref: ImageReference, failure: CopyFailure): string {
  const cause = redactCredentials(failure.message);
  if (failure.timedOut) return `skopeo copy ${image} did not finish within ${PULL_TIMEOUT_MS / 60_000} min`;
  if (ref.transport !== "docker") return `skopeo copy ${image} failed: ${cause}`;
  const registry = ref.registry;
  if (UNREACHABLE.test(cause))
    return `cannot pull ${image}: the registry ${registry} is unreachable from this machine (${cause}). Where no registry is reachable, copy the image into a file on a machine that reaches one (skopeo copy ${image} oci-archive:image.tar) and name that: "image": "oci-archive:image.tar"`;
  if (DENIED.test(cause))
    return `cannot pull ${image}: the registry ${registry} was reached but refused access (${cause}); log in with \`skopeo login ${registry}\` (or set REGISTRY_AUTH_FILE)`;
  if (MISSING.test(cause))
    return `cannot pull ${image}: the registry ${registry} was reached but has no such image (${cause})`;
  return `cannot pull ${image}: the registry ${registry} was reached, but skopeo copy failed: ${cause}`;
}

/** Text with URL credentials (`scheme://user:password@`) and authorization values blanked out. */
export function redactCredentials(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@"]+@/gi, "$1***@")
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, "$1 ***")
    .replace(/\b(password|passwd|token|secret|auth)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1$2***");
}
