// Types for lib.mjs, so TypeScript tests can import it under `strict`.
export declare const ROOT: string;
export declare const TASKS_DIR: string;
export declare const ROLLOUTS_DIR: string;
export declare const SPECS_DIR: string;
export declare const SANDBOX_ENV: Readonly<Record<string, string>>;

export interface ExampleTask {
  id: string;
  dir: string;
  /** task.json as parsed JSON (validate it with TaskSpec). */
  spec: {
    id: string;
    language: string;
    test: { command: string[] };
    failToPass: string[];
    passToPass?: string[];
    timeoutSec?: number;
    [key: string]: unknown;
  };
  repoDir: string;
  testsDir: string;
  reference: string | null;
}

export interface ExampleRollout {
  id: string;
  taskId: string;
  groupId?: string;
  patch: string;
  trajectory?: {
    turns?: number;
    tokens?: number;
    finishReason?: string;
    messages?: Array<{
      role: string;
      content: string | null;
      tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
      tool_call_id?: string;
    }>;
  };
  meta?: { style?: string; expected?: "pass" | "fail"; notes?: string; applies?: boolean };
}

export type TestStatus = "passed" | "failed" | "error" | "skipped";

export interface PackVerdict {
  passed: boolean;
  reason: "passed" | "tests-failed" | "apply-failed" | "crashed" | "timeout";
  failing?: string[];
  message?: string;
  tests: Record<string, TestStatus>;
  output?: string;
}

export declare function taskIds(): string[];
export declare function loadTask(id: string): ExampleTask;
export declare function loadRollouts(id: string): ExampleRollout[];
export declare function listFiles(dir: string, base?: string): string[];
export declare function tempDir(prefix?: string): string;
export declare function copyRepo(task: ExampleTask, dest?: string): string;
export declare function applyPatch(dir: string, patch: string, options?: { check?: boolean }): { ok: boolean; message: string };
export declare function verifyPatch(task: ExampleTask, patch: string): Promise<PackVerdict>;
export declare function junitToStatuses(xml: string, language: string, testFiles: string[]): Record<string, TestStatus>;
export declare function toolchainProblems(): string[];
