import { ConfigError } from "../errors.ts";

/**
 * The whole environment a sandboxed program starts from. Nothing comes from the host: the verifier's
 * own environment may hold API keys, and RL policies find and print whatever they can read.
 * HOME and TMPDIR point at the private /tmp; bytecode goes to /tmp/pyc so that a stale or planted
 * `__pycache__` in the workspace is never written next to the sources. PWD is listed because bwrap's
 * --chdir always sets it (and a shell would export it anyway), so every backend shows the same set.
 */
export const sandboxBaseEnv: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/usr/bin:/bin",
  HOME: "/tmp",
  TMPDIR: "/tmp",
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONPYCACHEPREFIX: "/tmp/pyc",
  CI: "1",
  LANG: "C.UTF-8",
  PWD: "/workspace",
});

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Base environment plus the spec's variables (which win), checked so they pass through argv safely. */
export function buildSandboxEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = { ...sandboxBaseEnv };
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!NAME.test(name))
      throw new ConfigError(`sandbox env name ${JSON.stringify(name)} is not a valid name`);
    if (typeof value !== "string" || value.includes("\0")) {
      throw new ConfigError(`sandbox env ${name} must be a string without NUL bytes`);
    }
    env[name] = value;
  }
  return env;
}
