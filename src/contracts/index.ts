export * from "./advantage-row.ts";
export * from "./finding.ts";
export * from "./group.ts";
export * from "./ranking.ts";
export * from "./rollout.ts";
export * from "./task-spec.ts";
export * from "./verdict.ts";
