// Types for check-pack.mjs, so TypeScript tests can import it under `strict`.
import type { ExampleRollout, ExampleTask, PackVerdict } from "./lib.mjs";

export declare const PY_COMMAND: string[];
export declare const JS_COMMAND: string[];

export interface RolloutRow {
  id: string;
  style?: string;
  expected?: "pass" | "fail";
  got: "pass" | "fail";
  reason: PackVerdict["reason"];
  failing: string[];
  ok: boolean;
}

export declare function staticProblems(task: ExampleTask, rollouts: ExampleRollout[]): string[];
export declare function checkTask(
  id: string,
  options?: { rollouts?: boolean; jobs?: number },
): Promise<{
  taskId: string;
  language: string;
  problems: string[];
  rows: RolloutRow[];
  base: PackVerdict;
  reference: PackVerdict;
}>;
