import { findTool } from "../../sandbox/host-tools.ts";
import { hostRuntime } from "../run/host-runtime.ts";
import { prepareRoot } from "./root-source.ts";
import type { Environment } from "./types.ts";

/**
 * A whole root filesystem (a directory, or a tarball from `docker export` or `mmdebstrap`) used
 * read-only as the sandbox's root instead of the host's: for tasks that need another toolchain or other
 * system libraries. Needs the host's loader under /usr (merged /usr) for the trusted runner.
 */
export const rootfsEnvironment: Environment<"rootfs"> = {
  kind: "rootfs",
  async supported() {
    const missing = [...hostRuntime().missing];
    if (!findTool("tar")) missing.push("tar not found: apt-get install tar");
    return { ok: missing.length === 0, missing };
  },
  prepare: (spec, context) => prepareRoot(spec, context),
};
