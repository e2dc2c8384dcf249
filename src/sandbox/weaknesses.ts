/** What no namespace backend can stop on hosts like these (reported by `check` and `gagar doctor`). */
export const NAMESPACE_WEAKNESSES: readonly string[] = [
  "shares the host kernel and installs no seccomp filter: a kernel exploit escapes, and code under test can ptrace the run's other processes (its pid 1 included) and rewrite /out after the trusted runner, and share the uid's keyring with later runs",
  "memory is capped per process (RLIMIT_AS), not per run: a run can use up to processes × memoryBytes (no cgroup limits)",
  "the workspace is a host directory: its total size is bounded per file (RLIMIT_FSIZE) unless the caller puts it on a size-limited tmpfs",
  "anything the candidate's code can write (workspace, /out) can be forged while it runs: grade with canaries",
];
