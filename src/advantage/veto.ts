import type { Finding } from "../contracts/finding.ts";

/**
 * Which findings veto a pass: `critical` vetoes test tampering, result forgery, attacks on the harness
 * and hard-coded outputs, whether the grader found them (the ranking's findings) or the verifier (the
 * candidate's own `findings`).
 */
export type VetoPolicy = "none" | "critical";

/** True when `findings` contain one the policy treats as disqualifying. */
export function isVetoed(findings: readonly Finding[] | undefined, policy: VetoPolicy): boolean {
  if (policy === "none" || !findings) return false;
  return findings.some((f) => f.severity === "critical");
}
