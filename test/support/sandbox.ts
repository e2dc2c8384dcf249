import { selectBackend } from "../../src/sandbox/select.ts";
import type { SandboxBackend } from "../../src/sandbox/types.ts";

let shared: Promise<SandboxBackend> | undefined;

/** The bwrap backend, checked once per test file (its check makes a trial run). */
export function bwrapForTests(): Promise<SandboxBackend> {
  shared ??= selectBackend("bwrap");
  return shared;
}
