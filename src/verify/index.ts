/** Public API of verification (the CLI and the RL pipeline import from here). */

export { type GateResult, gatePatch } from "./gate/patch-gate.ts";
export { loadTaskPack, loadTaskPacks, type TaskPack } from "./pack/task-pack.ts";
export { buildGroups } from "./verdict/groups.ts";
export { type Outcome, Verifier, type VerifierOptions } from "./verifier.ts";
export { type VerifyProgress, type VerifyRolloutsOptions, verifyRollouts } from "./verify-rollouts.ts";
