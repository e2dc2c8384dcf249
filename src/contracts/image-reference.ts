/**
 * Container image references with a skopeo transport, as an `oci` environment's `image` names them:
 *
 * - `docker://[REGISTRY[:PORT]/]NAME[:TAG][@DIGEST]` — pulled from a registry;
 * - `oci:DIR[:REF]`, `oci-archive:FILE[:REF]` — an OCI image layout, or a tar of one;
 * - `docker-archive:FILE[:NAME:TAG | :@INDEX]` — a `docker save` archive;
 * - `dir:DIR` — skopeo's directory form.
 *
 * As in skopeo, a local path ends at the first ":" (what follows picks the image in it). Relative paths
 * are relative to the task folder. Credentials never belong in a reference (task.json files are shared
 * and references are logged): a registry login comes from skopeo's own auth files.
 */
export type ImageReference =
  | {
      transport: "docker";
      /** What follows `docker://`. */
      name: string;
      /** The registry host (and port) the name resolves to; docker.io when it names none. */
      registry: string;
    }
  | {
      transport: LocalTransport;
      /** The file or directory, as written (relative to the task folder unless absolute). */
      path: string;
      /** What follows the path (`REF`, `NAME:TAG`, `@INDEX`), if anything. */
      selector?: string;
    };

export const LOCAL_TRANSPORTS = ["oci", "oci-archive", "docker-archive", "dir"] as const;
export type LocalTransport = (typeof LOCAL_TRANSPORTS)[number];

const EXAMPLES = "docker://docker.io/library/python:3.12-slim, oci-archive:image.tar, oci:DIR:TAG";

// The docker reference grammar (distribution/reference), as skopeo's docker:// transport reads it.
const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const DOMAIN_PART = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_PART}(?:\\.${DOMAIN_PART})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const TAG = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const DOCKER_REFERENCE = new RegExp(
  `^(?:${DOMAIN}/)?${COMPONENT}(?:/${COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`,
);

/** Transports skopeo knows that gagar does not take, and what to do instead. */
const UNSUPPORTED: Record<string, string> = {
  "docker-daemon":
    "gagar does not talk to a docker daemon: `docker save IMAGE -o image.tar` and name docker-archive:image.tar",
  "containers-storage":
    "gagar does not read a local containers storage: `skopeo copy containers-storage:IMAGE oci-archive:image.tar` and name oci-archive:image.tar",
  ostree: "gagar does not read ostree repositories: copy the image into oci-archive:image.tar",
  sif: "gagar does not read SIF images: copy the image into oci-archive:image.tar",
};

const CREDENTIALS =
  "the reference holds credentials (user:password@): remove them and log in with `skopeo login REGISTRY` (or set REGISTRY_AUTH_FILE) instead";

/** `user@host/…`, `user:password@host…`, `scheme://user:password@…`: said without quoting it. */
function holdsCredentials(text: string): boolean {
  return /^[^/@]*@[^/]*\//.test(text) || /^[^/]*:[^/]*@/.test(text) || /\/\/[^/]*@/.test(text);
}

/** The reference `text` names, or why it is not one (a message that never repeats credentials). */
export function parseImageReference(
  text: string,
): { ok: true; ref: ImageReference } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(text))
    return fail("an image reference must not contain spaces or control characters");
  const colon = text.indexOf(":");
  const transport = colon < 0 ? "" : text.slice(0, colon);
  const rest = colon < 0 ? "" : text.slice(colon + 1);
  if (transport === "docker") {
    if (!rest.startsWith("//"))
      return fail(`a registry reference is docker://[REGISTRY/]NAME[:TAG], not docker:${rest.slice(0, 40)}`);
    const name = rest.slice(2);
    if (holdsCredentials(name)) return fail(CREDENTIALS);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name))
      return fail(`"${text}" has a URL scheme after docker://: write docker://REGISTRY/NAME:TAG`);
    if (!DOCKER_REFERENCE.test(name))
      return fail(
        `"${text}" is not a valid registry reference: docker://[REGISTRY[:PORT]/]NAME[:TAG][@sha256:DIGEST], with NAME in lower case`,
      );
    const first = name.split("/")[0]!;
    const hasRegistry =
      name.includes("/") && (/[.:]/.test(first) || first === "localhost" || first.startsWith("["));
    return { ok: true, ref: { transport: "docker", name, registry: hasRegistry ? first : "docker.io" } };
  }
  if ((LOCAL_TRANSPORTS as readonly string[]).includes(transport)) {
    const at = rest.indexOf(":");
    const path = at < 0 ? rest : rest.slice(0, at);
    const selector = at < 0 ? undefined : rest.slice(at + 1);
    if (!path)
      return fail(
        `"${text}" names no ${transport === "oci" || transport === "dir" ? "directory" : "file"} after ${transport}:`,
      );
    if (transport === "dir" && selector !== undefined)
      return fail(`"${text}": a dir: reference is a directory alone (no ":" in the path)`);
    if (selector === "") return fail(`"${text}" ends with ":": name the image after it, or drop the ":"`);
    return {
      ok: true,
      ref: { transport: transport as LocalTransport, path, ...(selector !== undefined ? { selector } : {}) },
    };
  }
  if (holdsCredentials(text)) return fail(CREDENTIALS);
  const hint = UNSUPPORTED[transport];
  if (hint) return fail(`${transport}: images are not supported: ${hint}`);
  return fail(
    `"${text.length > 80 ? `${text.slice(0, 80)}…` : text}" has no skopeo transport gagar takes: start it with docker://, oci:, oci-archive:, docker-archive: or dir: (e.g. ${EXAMPLES}); a local layout or docker save archive may be named as "path" instead`,
  );
}
