/**
 * The patch gate's contract: it accepts exactly the patches `git apply` accepts at the task's base,
 * minus the refusals listed here. Each is a deliberate policy (security.md §3, §4.2, §7) and each is
 * documented in docs/security.md under its id; the differential test against git reads this list.
 *
 * Everything git's own reader refuses the gate refuses too, as `git-refuses` (with git's message);
 * what only the tree decides (context that does not match, a file that is missing or already there)
 * is left to `git apply` of the gate's rendering, which decides it exactly as for the original.
 */
export const GATE_REFUSALS = {
  "size-cap": "the patch is larger than the gate's byte cap",
  "file-cap": "the patch touches more files than the gate's file cap",
  "hunk-cap": "the patch has more hunks than the gate's hunk cap",
  "nul-byte": "the patch text holds a NUL byte (git would cut names at it)",
  "forbidden-path":
    "a path that escapes the tree, names git metadata (NTFS aliases included), bytecode, a native library, an interpreter start-up hook or Python packaging metadata, or holds a control character, a backslash or bytes that are not UTF-8",
  symlink: "a header line names mode 120000 (symbolic link)",
  gitlink: "a header line names mode 160000 (submodule)",
  "file-mode": "a header line names a mode other than 100644 and 100755",
  binary: "a `GIT binary patch` or `Binary files … differ` section, readable or not",
  "toolchain-shadowing":
    "a new top-level Python module named like a toolchain module, where the tests import it",
  "module-shadowing":
    "a new module the tests would import instead of the repository's own or of a module they import",
  "protected-path":
    "under the reject policy, a change to a protected path (under the default strip policy that change is dropped with a finding instead)",
  "odd-header":
    "a header git accepts in a state its own diffs never have (a deletion that also names a new file)",
} as const;

export type GateRefusal = keyof typeof GATE_REFUSALS;

/** Why the gate refused: one of its documented refusals, or git's own refusal of the patch. */
export type GateRefusalRule = GateRefusal | "git-refuses";
