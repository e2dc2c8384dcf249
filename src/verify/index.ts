/** Public API of verification (the CLI and the RL pipeline import from here). */
export { buildGroups } from "./groups.ts";
export { type GateResult, gatePatch } from "./patch-gate.ts";
export { loadTaskPack, loadTaskPacks, type TaskPack } from "./task-pack.ts";
export { type Outcome, Verifier, type VerifierOptions } from "./verifier.ts";
export { type VerifyProgress, type VerifyRolloutsOptions, verifyRollouts } from "./verify-rollouts.ts";
