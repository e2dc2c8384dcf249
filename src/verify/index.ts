/** Public API of verification (the CLI and the RL pipeline import from here). */

export type { RunOverrides } from "./candidate-run.ts";
export { buildGroups } from "./groups.ts";
export { GUARD_FD } from "./guards/guard-setup.ts";
export { type GateResult, gatePatch } from "./patch-gate.ts";
export type { TestPlan } from "./runners/types.ts";
export { loadTaskPack, loadTaskPacks, type TaskPack } from "./task-pack.ts";
export { type Outcome, type PlanRun, Verifier, type VerifierOptions } from "./verifier.ts";
export { type VerifyProgress, type VerifyRolloutsOptions, verifyRollouts } from "./verify-rollouts.ts";
