import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { encodeRunnerPlan, encodeRunnerRequest, type RunnerPlan } from "./runner-plan.ts";

const RUNNER = fileURLToPath(new URL("./sandbox-runner.py", import.meta.url));

/** The runner's own parser and status encoder, called through python3 on the given input. */
function python(code: string, input: string): string {
  const script = `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("runner", ${JSON.stringify(RUNNER)})
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
data = sys.stdin.buffer.read().decode("utf-8")
${code}`;
  return execFileSync("python3", ["-I", "-B", "-c", script], { input, encoding: "utf8" });
}

const plan: RunnerPlan = {
  killOthers: true,
  reportCapBytes: 16 << 20,
  timeoutMs: 120_000,
  graceMs: 3000,
  applyArgv: ["git", "-c", "core.hooksPath=/dev/null", "apply"],
  runs: [
    {
      label: "pytest",
      reportFd: 3,
      guardFd: 4,
      argv: ["python3", "-m", "pytest", "--junitxml=/proc/self/fd/3", "tests/ü.py"],
    },
    { label: "empty argv list", reportFd: 3, guardFd: 0, argv: [] },
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
    expect(verdict(text.replace("gagar-plan-3", "gagar-plan-2"))).toBe("not a gagar runner plan");
  });

  it("rejects tokens with NUL bytes instead of shifting every later field", () => {
    expect(() => encodeRunnerPlan({ ...plan, applyArgv: ["a\0b"] })).toThrow(/NUL/);
  });
});

describe("runner request", () => {
  const parse = (input: string) =>
    JSON.parse(
      python(
        "r = runner.parse_request(data.encode('utf-8'))\nprint(json.dumps(None if r is None else [r[0], r[1], None if r[2] is None else r[2].decode('utf-8')]))",
        input,
      ),
    );

  it("carries the patch as the raw tail, whatever bytes it holds", () => {
    const patch = "diff --git a/x b/x\n+nul \0 inside, é, and a trailing newline\n";
    const request = { token: "0123abcd", bytecodeDirs: ["", "pkg/sub dir"], patch };
    expect(parse(encodeRunnerRequest(request))).toEqual(["0123abcd", ["", "pkg/sub dir"], patch]);
  });

  it("says 'no patch' for an empty one, and 'not needed' for an empty stdin", () => {
    expect(parse(encodeRunnerRequest({ token: "t", bytecodeDirs: [], patch: "" }))).toEqual(["t", [], null]);
    expect(parse("")).toBeNull();
  });

  it("refuses tokens the runner could not echo verbatim", () => {
    expect(() => encodeRunnerRequest({ token: "a b", bytecodeDirs: [], patch: "" })).toThrow(/token/);
    expect(() => encodeRunnerRequest({ token: "t", bytecodeDirs: ["a\0b"], patch: "" })).toThrow(/NUL/);
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

describe("runner process hardening", () => {
  it("makes itself non-dumpable through libc's prctl without the ctypes package", () => {
    // set_nondumpable returns what PR_GET_DUMPABLE says after the call (-1 if prctl could not be called).
    const out = python("print(runner.set_nondumpable(), 'ctypes' in sys.modules)", "");
    expect(out.trim()).toBe("0 False");
  });
});
