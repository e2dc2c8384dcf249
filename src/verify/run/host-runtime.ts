import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The verifier's own programs inside a sandbox whose root is not the host's (rootfs and oci
 * environments). The trusted runner must not depend on anything there: a root may have no Python, or
 * another one, and a candidate could shadow whatever the runner would load from it. So the host's /usr
 * is bound read-only at `/gagar/host/usr`, and the host's Python and git run from there through the
 * host's own dynamic loader, with the host's libraries on the loader's `--library-path` (which, unlike
 * LD_LIBRARY_PATH, is not inherited by the test commands the runner starts). Python finds its standard
 * library from its own location (`sys.prefix` is /gagar/host/usr). Nothing the candidate can write is
 * on any of these paths.
 *
 * Needs a merged-/usr host (the loader lives under /usr, as on Debian 12).
 */
export const HOST_PREFIX = "/gagar/host";

export interface HostRuntime {
  /** argv prefix that runs a host program (a /usr path) from /gagar/host/usr; empty when unsupported. */
  wrap(program: string): string[];
  missing: string[];
}

const LOADERS = ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-armhf.so.3"];

let cached: HostRuntime | undefined;

export function hostRuntime(): HostRuntime {
  cached ??= find();
  return cached;
}

function find(): HostRuntime {
  const loader = LOADERS.filter((p) => existsSync(p)).map((p) => realpathSync(p))[0];
  if (!loader)
    return { wrap: () => [], missing: ["no dynamic loader of a supported architecture found on the host"] };
  if (!loader.startsWith("/usr/"))
    return {
      wrap: () => [],
      missing: [
        `the host's loader ${loader} is outside /usr (a merged-/usr host is needed for rootfs and oci environments)`,
      ],
    };
  const libs = [dirname(loader), "/usr/lib"].map((d) => HOST_PREFIX + d).join(":");
  return {
    wrap: (program) => [HOST_PREFIX + loader, "--library-path", libs, HOST_PREFIX + realpathSync(program)],
    missing: [],
  };
}
