import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNNER_SOURCE = fileURLToPath(new URL("../run/sandbox-runner.py", import.meta.url));

/**
 * Puts the runner into the session folder, compiled: Python would otherwise compile the source in every
 * sandbox, since -B and the read-only bind leave it no bytecode cache. The sandbox's interpreter is the
 * host's /usr/bin/python3, so its bytecode is what that one makes. Falls back to the source when it
 * cannot be compiled (the self-test then says what is wrong).
 */
export function installRunner(root: string): string {
  const compiled = join(root, "runner.pyc");
  try {
    execFileSync(
      "/usr/bin/python3",
      [
        "-I",
        "-S",
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
        RUNNER_SOURCE,
        compiled,
      ],
      { stdio: ["ignore", "ignore", "pipe"], env: {} },
    );
    return compiled;
  } catch {
    const source = join(root, "runner.py");
    copyFileSync(RUNNER_SOURCE, source);
    return source;
  }
}
