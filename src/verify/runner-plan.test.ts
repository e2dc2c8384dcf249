import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { encodeRunnerPlan, type RunnerPlan } from "./runner-plan.ts";

const RUNNER = fileURLToPath(new URL("./sandbox-runner.py", import.meta.url));

/** The runner's own parser and status encoder, called through python3 on the given input. */
function python(code: string, input: string): string {
  const script = `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("runner", ${JSON.stringify(RUNNER)})
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
data = sys.stdin.buffer.read().decode("utf-8")
${code}`;
  return execFileSync("python3", ["-I", "-c", script], { input, encoding: "utf8" });
}

const plan: RunnerPlan = {
  killOthers: true,
  reportCapBytes: 16 << 20,
  applyArgv: ["git", "-c", "core.hooksPath=/dev/null", "apply"],
  bytecodeDirs: ["", "pkg/sub dir"],
  runs: [
    {
      label: "pytest",
      reportFd: 3,
      argv: ["python3", "-m", "pytest", "--junitxml=/proc/self/fd/3", "tests/ü.py"],
    },
    { label: "empty argv list", reportFd: 3, argv: [] },
  ],
};

describe("runner plan", () => {
  it("round-trips through the runner's parser", () => {
    const parsed = JSON.parse(python("print(json.dumps(runner.parse_plan(data)))", encodeRunnerPlan(plan)));
    expect(parsed).toEqual(plan);
  });

  it("is refused by the runner when truncated or padded", () => {
    const text = encodeRunnerPlan(plan);
    const verdict = (input: string) =>
      python(
        "try:\n    runner.parse_plan(data)\n    print('ok')\nexcept ValueError as e:\n    print(e)",
        input,
      ).trim();
    expect(verdict(text.slice(0, text.lastIndexOf("\0")))).toBe("runner plan ends early");
    expect(verdict(`${text}\0extra`)).toBe("runner plan has trailing tokens");
    expect(verdict(text.replace("gagar-plan-1", "gagar-plan-0"))).toBe("not a gagar runner plan");
  });

  it("rejects tokens with NUL bytes instead of shifting every later field", () => {
    expect(() => encodeRunnerPlan({ ...plan, bytecodeDirs: ["a\0b"] })).toThrow(/NUL/);
  });
});

describe("runner status encoder", () => {
  it("writes JSON that JSON.parse reads back exactly", () => {
    const value = {
      token: 'quote " backslash \\ newline \n nul \0 del \u007f é 😀',
      apply: null,
      runs: [{ exitCode: -9, ok: true, held: false, bytes: 0 }],
    };
    const out = python("print(runner.to_json(json.loads(data)))", JSON.stringify(value));
    expect(JSON.parse(out)).toEqual(value);
  });
});
