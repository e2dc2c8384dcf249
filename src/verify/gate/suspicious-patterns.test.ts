import { describe, expect, it } from "vitest";
import { parseDiff } from "../../diff/parse.ts";
import { scanSuspicious } from "./suspicious-patterns.ts";

function added(path: string, lines: string[]): string {
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,${lines.length + 1} @@\n ctx\n${lines.map((l) => `+${l}`).join("\n")}\n`;
}

const kinds = (patch: string) => scanSuspicious(parseDiff(patch)).map((f) => f.kind);

describe("scanSuspicious", () => {
  it("flags test-runner detection", () => {
    expect(kinds(added("calc.py", ['if "pytest" in sys.modules:', "    return 1"]))).toEqual([
      "test-detection",
    ]);
    expect(kinds(added("calc.py", ['if os.environ.get("PYTEST_CURRENT_TEST"):']))).toEqual([
      "test-detection",
    ]);
    expect(kinds(added("m.js", ["if (process.env.CI) return 3;"]))).toEqual(["test-detection"]);
  });

  it("flags skips, assertion overrides, exits and fake output", () => {
    expect(kinds(added("calc.py", ["pytest.skip('x', allow_module_level=True)"]))).toEqual(["test-skip"]);
    expect(kinds(added("calc.py", ["unittest.TestCase.assertEqual = lambda *a: None"]))).toEqual([
      "assertion-override",
    ]);
    expect(kinds(added("m.js", ["assert.strictEqual = () => {};"]))).toEqual(["assertion-override"]);
    expect(kinds(added("m.js", ["for (const n of names) assert[n] = () => {};"]))).toEqual([
      "assertion-override",
    ]);
    expect(kinds(added("calc.py", ["os._exit(0)"]))).toEqual(["early-exit"]);
    expect(kinds(added("calc.py", ["sys.meta_path.insert(0, Finder())"]))).toEqual(["runner-tampering"]);
    expect(kinds(added("calc.py", ["from _pytest.assertion import rewrite"]))).toEqual(["runner-tampering"]);
    expect(kinds(added("calc.py", ['print("===== 3 passed in 0.1s =====")']))).toEqual(["forged-output"]);
  });

  it("flags __eq__ that always returns True, with its line", () => {
    const findings = scanSuspicious(
      parseDiff(added("calc.py", ["class R:", "    def __eq__(self, o):", "", "        return True"])),
    );
    expect(findings).toEqual([
      {
        kind: "always-equal",
        severity: "critical",
        file: "calc.py",
        line: 3,
        message: "__eq__ always returns True",
      },
    ]);
  });

  it("ignores ordinary code, comparisons and removed lines", () => {
    const patch = `${added("calc.py", ["def __eq__(self, o):", "    return self.v == o.v", "if assert_ok == 1:", "sys.exit(main())"])}`;
    expect(kinds(patch)).toEqual([]);
    const removed = "diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n@@ -1,2 +1,1 @@\n x\n-os._exit(0)\n";
    expect(kinds(removed)).toEqual([]);
  });
});
