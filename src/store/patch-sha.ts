import { createHash } from "node:crypto";

/**
 * The content key of a patch: SHA-256 of its UTF-8 bytes, lowercase hex. Verdicts are keyed by
 * (task, this), so byte-identical patches of one task are verified once, across groups, steps and
 * resumed runs. No normalization: a patch that differs by one byte may behave differently.
 */
export function patchSha256(patch: string): string {
  return createHash("sha256").update(patch, "utf8").digest("hex");
}
