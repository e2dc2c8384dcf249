import { findTool } from "../../sandbox/host-tools.ts";
import { hostRuntime } from "../host-runtime.ts";
import { prepareRoot } from "./root-source.ts";
import type { Environment } from "./types.ts";

/**
 * An OCI image (an image layout directory, or a `docker save` archive) unpacked once per manifest
 * digest with Debian's umoci (and skopeo for archives) into a cached root filesystem, then used like a
 * rootfs environment. Images come from files: pull them into a layout beforehand (`skopeo copy
 * docker://… oci:DIR:TAG`) where a registry is reachable.
 */
export const ociEnvironment: Environment<"oci"> = {
  kind: "oci",
  async supported() {
    const missing = [...hostRuntime().missing];
    if (!findTool("umoci")) missing.push("umoci not found: apt-get install umoci");
    if (!findTool("skopeo")) missing.push("skopeo not found (docker save archives): apt-get install skopeo");
    return { ok: missing.length === 0, missing };
  },
  prepare: (spec, context) => prepareRoot(spec, context),
};
