import { describe, expect, it } from "vitest";
import type { TestPlan } from "../runners/types.ts";
import { guardFacts, guardSetup } from "./guard-setup.ts";

const hidden: Record<string, string> = {
  "tests/test_calc.py":
    "import json\nimport pytest\nfrom calc import div\nfrom pkg.sub import x, y as z\nfrom pkg import *\n",
  "tests/data/expected.json": "{}",
  "test/stats.test.js": 'const { mean } = require("../lib/stats.js");\n',
};
const facts = guardFacts(Object.keys(hidden), (f) => hidden[f]!, [
  "calc.py",
  "src/pkg/__init__.py",
  "src/pkg/sub.py",
  "tests/helpers.py",
  "test_root.py",
  "setup.py",
  "lib/stats.js",
]);
const plan = {
  files: [{ path: "tests/test_1a2b.py", content: "" }],
  runs: [],
  support: [],
  locate: () => null,
} as unknown as TestPlan;

describe("what the guards watch", () => {
  it("protects the hidden test modules, not their data files", () => {
    expect(facts.testSources).toEqual(["tests/test_calc.py", "test/stats.test.js"]);
    expect(facts.testDirs).toEqual(["test", "tests", "tests/data"]);
  });

  it("leaves out a repository module whose name a module in a test directory has too", () => {
    const both = guardFacts(["tests/test_a.py", "tests/utils.py"], () => "", ["utils.py", "calc.py"]);
    expect(both.modules).toEqual({ calc: "" });
  });

  it("knows the repository's top-level modules and where they live, and the other modules the tests import", () => {
    expect(facts.modules).toEqual({ calc: "", pkg: "src" });
    expect(facts.watch).toEqual(["json", "pytest"]);
    expect(facts.testImports).toEqual({
      "tests/test_calc.py": [
        ["calc", "div", "div"],
        ["pkg.sub", "x", "x"],
        ["pkg.sub", "y", "z"],
        ["pkg", "*", "*"],
      ],
    });
  });
});

describe("how a run loads the guards", () => {
  it("adds to the task's NODE_OPTIONS, PYTEST_ADDOPTS and PYTHONPATH, with fresh module names each run", () => {
    const a = guardSetup(facts, plan, ["python3", "-B", "-m", "pytest"], {
      NODE_OPTIONS: "--max-old-space-size=512",
      PYTHONPATH: "src",
    });
    const b = guardSetup(facts, plan, ["python3", "-B", "-m", "pytest"]);
    expect(a.env.NODE_OPTIONS).toMatch(
      /^--max-old-space-size=512 --require \/gagar\/support\/[0-9a-f]{12}\.cjs$/,
    );
    expect(a.env.PYTHONPATH).toBe("src:/gagar/support");
    expect(a.env.PYTEST_ADDOPTS).toMatch(/^-p _[0-9a-f]{12}$/);
    expect(a.support.map((f) => f.path)).not.toEqual(b.support.map((f) => f.path));
    const config = JSON.parse(a.env.GAGAR_GUARD!);
    expect(config.testSources).toEqual(["test/stats.test.js", "tests/test_1a2b.py", "tests/test_calc.py"]);
    expect(config.fd).toBe(4);
  });

  it("adds its directory where the command sets PYTHONPATH itself, and nowhere else", () => {
    const setup = guardSetup(facts, plan, ["env", "PYTHONPATH=src", "python3", "-m", "pytest"]);
    expect(setup.argv(["env", "PYTHONPATH=src", "python3", "-m", "pytest", "tests/test_calc.py"])).toEqual([
      "env",
      "PYTHONPATH=src:/gagar/support",
      "python3",
      "-m",
      "pytest",
      "tests/test_calc.py",
    ]);
    expect(setup.argv(["python3", "-m", "pytest"])).toEqual(["python3", "-m", "pytest"]);
  });

  it("gives a Python started isolated (-I, -E) no pytest guard, since it would ignore PYTHONPATH", () => {
    const isolated = guardSetup(facts, plan, ["python3", "-I", "-m", "pytest"]);
    expect(isolated.env.PYTEST_ADDOPTS).toBeUndefined();
    expect(isolated.support.filter((f) => f.path.endsWith(".py"))).toEqual([]);
    expect(guardSetup(facts, plan, ["pytest", "-Werror", "-I"]).env.PYTEST_ADDOPTS).toBeDefined();
    const wrapped = guardSetup(facts, plan, ["sh", "-c", "PYTHONPATH=src python3 -I -m pytest"]);
    expect(wrapped.env.PYTEST_ADDOPTS).toBeUndefined();
    expect(wrapped.argv(["sh", "-c", "PYTHONPATH=src python3 -I -m pytest"])[2]).toBe(
      "PYTHONPATH=src python3 -I -m pytest",
    );
  });
});
