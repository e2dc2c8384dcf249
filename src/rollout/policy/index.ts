export type { PolicyFinishReason } from "./agent-loop.ts";
export { POLICY_DEFAULTS } from "./defaults.ts";
export { PolicyServerError } from "./policy-server-error.ts";
export { PolicySource, type PolicySourceOptions } from "./policy-source.ts";
export { POLICY_TOOLS } from "./tool-specs.ts";
