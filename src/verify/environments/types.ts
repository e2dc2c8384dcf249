import type { EnvironmentSpec } from "../../contracts/task-spec.ts";
import { ConfigError } from "../../errors.ts";
import type { SandboxBackend } from "../../sandbox/types.ts";
import type { Snapshot } from "../workspace/snapshot.ts";

/**
 * The seam between the verifier and the place a task's tests run. One implementation per kind
 * (`environments/<kind>.ts`: host, setup, rootfs, oci), registered by kind (registry.ts) and held to
 * one contract suite (contract.test-suite.ts).
 *
 * An environment is built once per digest of its spec (and of what it is built from), kept in a cache
 * folder, and shared read-only by every candidate of every task that uses it: a candidate's workspace
 * stays one overlay on the task's snapshot whatever the environment holds. The trusted runner never
 * depends on anything inside the environment (candidate-run.ts brings the host's interpreter along).
 */
export interface Environment<K extends EnvironmentSpec["kind"] = EnvironmentSpec["kind"]> {
  readonly kind: K;
  /** Whether this host can build and use the kind (doctor reports it), and what is missing if not. */
  supported(): Promise<{ ok: boolean; missing: string[] }>;
  /** Builds the environment (or takes it from the cache) for one task. */
  prepare(
    spec: Extract<EnvironmentSpec, { kind: K }>,
    context: EnvironmentContext,
  ): Promise<PreparedEnvironment>;
}

export interface EnvironmentContext {
  /** Where built environments are kept, one folder per digest. */
  cacheDir: string;
  /** The task folder (relative paths in the spec are relative to it). */
  taskDir: string;
  /** The task's trusted snapshot of repo/ (what a setup environment installs into). */
  snapshot: Snapshot;
  /** The sandbox for trusted set-up commands. */
  sandbox: SandboxBackend;
  /** Progress of long builds (extracting, installing). */
  log?: (message: string) => void;
}

export interface PreparedEnvironment {
  kind: EnvironmentSpec["kind"];
  /** Digest of what was built (spec and inputs); equal digests share one build. */
  digest: string;
  /** A root filesystem for the sandbox instead of the host's, or undefined for the host's. */
  root?: string;
  /** The repository the tests see, when the environment changed it (setup); else the plain snapshot. */
  tree?: string;
  /** Milliseconds spent building now; 0 when it came from the cache. */
  buildMs: number;
  /** Taken from the cache (built by an earlier session or task). */
  cached: boolean;
}

/** A task pack fault found while building its environment (a failing setup command, a bad image). */
export class EnvironmentError extends ConfigError {
  constructor(
    message: string,
    /** The tail of the output that shows why. */
    readonly outputTail = "",
  ) {
    super(message);
  }
}
