import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Top-level module names the sandbox's Python can import without the repository: the standard
 * library and every installed distribution. A candidate creating a new module of one of these names
 * where the tests' sys.path looks first (the workspace root under `python -m pytest`) would replace
 * it — a `pytest/` package replaces the test runner and can write any report (C6).
 *
 * Asked once per session from `/usr/bin/python3 -I` (isolated: no cwd, no user site, no PYTHON*
 * variables), which is the interpreter the sandbox mounts. Runs no repository code. An interpreter
 * that cannot be asked yields an empty set: the canaries still catch a fake runner that forges
 * blanket passes, and the verdict does not depend on this list.
 */
export async function toolchainModules(python = "/usr/bin/python3"): Promise<Set<string>> {
  const script =
    "import sys, pkgutil\n" +
    "names = set(sys.builtin_module_names) | set(getattr(sys, 'stdlib_module_names', ()))\n" +
    "names |= {m.name for m in pkgutil.iter_modules()}\n" +
    "print('\\n'.join(sorted(names)))\n";
  try {
    const { stdout } = await run(python, ["-I", "-c", script], { env: {}, cwd: "/", timeout: 20_000 });
    return new Set(stdout.split("\n").filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)));
  } catch {
    return new Set();
  }
}
