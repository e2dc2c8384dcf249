import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ignoresPythonPath, scriptWithPythonPath, withPythonPath } from "./python-path.ts";

const DIR = "/gagar/support";

/** What PYTHONPATH the last word of `argv` (a program printing it) sees, run for real. */
function seenPythonPath(argv: readonly string[]): string {
  const run = spawnSync(argv[0]!, argv.slice(1), {
    env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", PYTHONPATH: "/from/gagar" },
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").at(-2)!;
}

/** A program that prints the PYTHONPATH it was started with. */
const PRINT = "printenv PYTHONPATH || echo unset";

describe("the guard's directory in a command that sets PYTHONPATH itself", () => {
  it("is added after the value an env prefix assigns, or stands alone where env unsets it", () => {
    expect(withPythonPath(["env", "PYTHONPATH=src", "python3", "-m", "pytest"], DIR)).toEqual([
      "env",
      `PYTHONPATH=src:${DIR}`,
      "python3",
      "-m",
      "pytest",
    ]);
    expect(seenPythonPath(withPythonPath(["env", "A=1", "PYTHONPATH=", "sh", "-c", PRINT], DIR))).toBe(DIR);
    expect(seenPythonPath(withPythonPath(["env", "-u", "PYTHONPATH", "sh", "-c", PRINT], DIR))).toBe(DIR);
    expect(seenPythonPath(withPythonPath(["env", "--unset=PYTHONPATH", "X=1", "sh", "-c", PRINT], DIR))).toBe(
      DIR,
    );
    // env -i drops gagar's variables too: pytest then runs without the guard, and without failing.
    expect(withPythonPath(["env", "-i", "PYTHONPATH=src", "pytest"], DIR)).toEqual([
      "env",
      "-i",
      `PYTHONPATH=src:${DIR}`,
      "pytest",
    ]);
  });

  it("is added to the assignments of a shell script, wherever a command's assignments stand", () => {
    const cases: [string, string][] = [
      [`PYTHONPATH=src ${PRINT}`, `src:${DIR}`],
      [`cd /tmp && PYTHONPATH="a b" ${PRINT}`, `a b:${DIR}`],
      [`export PYTHONPATH=$(echo src)/x; ${PRINT}`, `src/x:${DIR}`],
      [`A=1 PYTHONPATH='$HOME' B=2 ${PRINT}`, `$HOME:${DIR}`],
      [`PYTHONPATH= ${PRINT}`, DIR],
      [`PYTHONPATH="" ${PRINT}`, DIR],
      [`if true; then PYTHONPATH=lib:src ${PRINT}; fi`, `lib:src:${DIR}`],
      [`env PYTHONPATH=\${UNSET_HERE:-/}src ${PRINT}`, `/src:${DIR}`],
      [`${PRINT} # PYTHONPATH=comment`, "/from/gagar"],
      [`echo PYTHONPATH=x; ${PRINT}`, "/from/gagar"],
    ];
    for (const [script, value] of cases) {
      for (const shell of ["sh", "bash"]) {
        const argv = withPythonPath([shell, "-ec", script], DIR);
        expect(seenPythonPath(argv), `${shell}: ${script}`).toBe(value);
      }
    }
  });

  it("leaves a PYTHONPATH= that is not an assignment alone", () => {
    expect(scriptWithPythonPath("echo PYTHONPATH=x; grep 'PYTHONPATH=y' f", DIR)).toBe(
      "echo PYTHONPATH=x; grep 'PYTHONPATH=y' f",
    );
    expect(withPythonPath(["python3", "-c", "import os; os.environ['PYTHONPATH=']"], DIR)).toEqual([
      "python3",
      "-c",
      "import os; os.environ['PYTHONPATH=']",
    ]);
    expect(withPythonPath(["bash", "-euo", "pipefail", "-c", "PYTHONPATH=src pytest"], DIR)[4]).toBe(
      `PYTHONPATH=src:${DIR} pytest`,
    );
  });

  it("composes with any value, and changes nothing else of the script (property, run in sh)", () => {
    const value = fc.stringMatching(/^[A-Za-z0-9_./:@ -]{0,12}$/);
    const quote = fc.constantFrom("plain", "single", "double");
    const prefix = fc.constantFrom("", "A=1 ", "export ", "env ", "true; ", "true && ", "( ", "{ ");
    fc.assert(
      fc.property(value, quote, prefix, fc.boolean(), (v, q, p, trailingText) => {
        if (q === "plain" && /[ ]/.test(v)) v = v.replace(/ /g, "_");
        const literal = q === "single" ? `'${v}'` : q === "double" ? `"${v}"` : v;
        const close = p === "( " ? " )" : p === "{ " ? "; }" : "";
        const tail = trailingText ? "; echo done" : "";
        const script =
          p === "export "
            ? `export PYTHONPATH=${literal}; ${PRINT}${tail}`
            : `${p}PYTHONPATH=${literal} ${PRINT}${close}${tail}`;
        const composed = scriptWithPythonPath(script, DIR);
        // Only the assignment's value changed:
        expect(composed.replace(`:${DIR}`, "").replace(DIR, "")).toBe(script);
        const lines = spawnSync("sh", ["-c", composed], {
          env: { PATH: "/usr/bin:/bin" },
          encoding: "utf8",
        }).stdout.split("\n");
        expect(lines[0]).toBe(v ? `${v}:${DIR}` : DIR);
      }),
      { numRuns: 100 },
    );
  });
});

describe("commands whose Python ignores PYTHONPATH", () => {
  it("are seen through env prefixes and shell scripts", () => {
    expect(ignoresPythonPath(["python3", "-I", "-m", "pytest"])).toBe(true);
    expect(ignoresPythonPath(["python3", "-B", "-m", "pytest", "-E"])).toBe(false);
    expect(ignoresPythonPath(["env", "X=1", "python3", "-sE", "-m", "pytest"])).toBe(true);
    expect(ignoresPythonPath(["sh", "-c", "cd src && python3 -B -I -m pytest"])).toBe(true);
    expect(ignoresPythonPath(["sh", "-c", "python3 -m pytest -I"])).toBe(false);
    expect(ignoresPythonPath(["pytest", "-I"])).toBe(false);
  });
});
