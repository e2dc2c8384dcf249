import { availableParallelism } from "node:os";

/**
 * Sandboxes running tests at once, at most per CPU this process may use. A verification is a
 * CPU-bound test run; past a few per core more of them only wait for a CPU while each holds its
 * workspace (tmpfs, i.e. memory), its processes and its mounts, and their timeouts start firing on
 * runs that were merely starved. Four per core leaves room for runs that wait on I/O.
 */
export const SANDBOX_JOBS_PER_CPU = 4;

/** The largest `--jobs` / `verifyJobs` accepted on this host: SANDBOX_JOBS_PER_CPU × available CPUs. */
export function maxSandboxJobs(cpus: number = availableParallelism()): number {
  return SANDBOX_JOBS_PER_CPU * cpus;
}
