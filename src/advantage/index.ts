export * from "./estimators.ts";
export * from "./group-advantages.ts";
export * from "./positions.ts";
export * from "./redistribute.ts";
export * from "./veto.ts";
