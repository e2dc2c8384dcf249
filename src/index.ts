/**
 * gagar as a library (`import { … } from "gagar"`; the data contracts alone from "gagar/contracts").
 * The CLI (`gagar …`) and the service are built on these same functions. README.md, "As a library",
 * shows them in use.
 */

export {
  type Estimator,
  estimatorNames,
  getEstimator,
  registerEstimator,
} from "./advantage/estimators.ts";
export {
  type AdvantageOptions,
  computeGroupAdvantages,
  type GroupAdvantages,
} from "./advantage/group-advantages.ts";
export * from "./contracts/index.ts";
export { ConfigError, GagarError, InputError, SandboxError } from "./errors.ts";
export {
  createGrader,
  type GraderCapabilities,
  type GraderFactory,
  graderNames,
  registerGrader,
} from "./grade/registry.ts";
export type { GradeContext, Grader } from "./grade/types.ts";
export type { ChatModel, ChatRequest, ChatResponse } from "./llm/chat-model.ts";
export { ChatModelError } from "./llm/chat-model-error.ts";
export { createOpenAIChatModel, type OpenAIChatModelOptions } from "./llm/openai-chat-model.ts";
export { type BackendName, type SelectOptions, selectBackend } from "./sandbox/select.ts";
export type { SandboxBackend } from "./sandbox/types.ts";
export { loadTaskPack, loadTaskPacks, type TaskPack } from "./verify/pack/task-pack.ts";
export { buildGroups } from "./verify/verdict/groups.ts";
export { type Outcome, Verifier, type VerifierOptions } from "./verify/verifier.ts";
export { type VerifyProgress, type VerifyRolloutsOptions, verifyRollouts } from "./verify/verify-rollouts.ts";
