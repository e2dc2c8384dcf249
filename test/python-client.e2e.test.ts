import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GagarProcess, startServe } from "./support/gagar-process.ts";

/**
 * The Python client (clients/python, standard library only) against a real `gagar serve` on the
 * example pack, run with the machine's python3: its own unittest suite, and the verl example that
 * docs/verl.md shows word for word.
 */
const ROOT = resolve(import.meta.dirname, "..");
const CLIENT = join(ROOT, "clients/python");
const TOKEN = "python-e2e-7a1f";

let serve: GagarProcess;
let url: string;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gagar-python-e2e-"));
  ({ serve, url } = await startServe(["--port", "0", "--out", dir, "--jobs", "2"], { GAGAR_TOKEN: TOKEN }));
}, 120_000);
afterAll(async () => {
  await serve?.stop("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

function python(args: string[]) {
  const run = spawnSync("python3", args, {
    cwd: CLIENT,
    env: { ...process.env, GAGAR_URL: url, GAGAR_TOKEN: TOKEN, PYTHONPATH: CLIENT },
    encoding: "utf8",
    timeout: 240_000,
  });
  if (run.error) throw new Error(`python3 could not run: ${run.error.message}`);
  return run;
}

describe("the Python client against gagar serve", () => {
  it("passes its unittest suite, every service test included", () => {
    const run = python(["-m", "unittest", "discover", "-s", "tests", "-v"]);
    expect(run.stderr).toMatch(/^OK$/m);
    expect(run.stderr).not.toMatch(/skipped/);
    expect(run.status).toBe(0);
  }, 240_000);

  it("runs the verl example that docs/verl.md shows", () => {
    const example = readFileSync(join(CLIENT, "examples/verl_step.py"), "utf8");
    expect(readFileSync(join(ROOT, "docs/verl.md"), "utf8")).toContain(example.trim());
    const run = python(["examples/verl_step.py", join(ROOT, "examples/rollouts")]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/prompt-tinyini-delimiter: 5\/6 passed, kept=True/);
    expect(run.stdout.match(/^row /gm)).toHaveLength(12);
  }, 240_000);
});
