import type { Environment } from "./types.ts";

/** The host's own toolchain (/usr, a curated /etc): what every task ran on before environments existed. */
export const hostEnvironment: Environment<"host"> = {
  kind: "host",
  supported: async () => ({ ok: true, missing: [] }),
  prepare: async () => ({ kind: "host", digest: "host", buildMs: 0, cached: true }),
};
