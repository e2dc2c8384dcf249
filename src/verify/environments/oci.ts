import { findTool } from "../../sandbox/host-tools.ts";
import { hostRuntime } from "../run/host-runtime.ts";
import { prepareRoot } from "./root-source.ts";
import type { Environment } from "./types.ts";

/**
 * An OCI image unpacked once per manifest digest with Debian's umoci into a cached root filesystem,
 * then used like a rootfs environment. The image is `path` (an image layout directory, or a `docker
 * save` archive read through skopeo) or `image`, a skopeo reference (`docker://REGISTRY/NAME:TAG`
 * where a registry is reachable, `oci-archive:FILE`, `docker-archive:FILE`, `oci:DIR:REF`, `dir:DIR`)
 * that `skopeo copy` copies into the environment cache once (image-pull.ts).
 */
export const ociEnvironment: Environment<"oci"> = {
  kind: "oci",
  async supported() {
    const missing = [...hostRuntime().missing];
    if (!findTool("umoci")) missing.push("umoci not found: apt-get install umoci");
    if (!findTool("skopeo"))
      missing.push("skopeo not found (image references, docker save archives): apt-get install skopeo");
    return { ok: missing.length === 0, missing };
  },
  prepare: (spec, context) => prepareRoot(spec, context),
};
