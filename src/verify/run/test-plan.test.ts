import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadTaskPack, testFilesOf } from "../pack/task-pack.ts";
import { planTests } from "./test-plan.ts";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));

describe("planTests", () => {
  it("runs pytest once with the report on fd 3 and a canary module per test directory", () => {
    const pack = loadTaskPack(`${FIXTURES}/calc-div-zero`);
    const plan = planTests(pack);
    expect(plan.runs).toHaveLength(1);
    const [run] = plan.runs;
    expect(run!.argv).toContain("--junitxml=/proc/self/fd/3");
    const canary = plan.files[0]!;
    expect(canary.path).toMatch(/^tests\/test_[0-9a-f]{12}\.py$/);
    expect(run!.argv.slice(-3)).toEqual(["tests/test_calc.py", "tests/test_extra.py", canary.path]);
    expect(run!.canaries.map((c) => c.expect)).toEqual(["pass", "fail", "fail"]);
    expect(canary.content).toContain(run!.canaries[1]!.message);
    expect(run!.canaries.every((c) => c.id.startsWith(`${canary.path}::test_`))).toBe(true);
    expect(plan.locate("tests/test_calc.py::test_div")).toEqual({
      run: 0,
      key: "tests.test_calc\u0000test_div",
    });
  });

  it("gives fresh random canaries every time", () => {
    const pack = loadTaskPack(`${FIXTURES}/calc-div-zero`);
    expect(planTests(pack).files[0]!.path).not.toBe(planTests(pack).files[0]!.path);
  });

  it("runs node:test once per file through a wrapper that imports the file", () => {
    const pack = loadTaskPack(`${FIXTURES}/stats-mean`);
    expect(testFilesOf(pack)).toEqual(["test/stats.test.js"]);
    const plan = planTests(pack);
    expect(plan.runs).toHaveLength(1);
    const [run] = plan.runs;
    const wrapper = plan.files[0]!;
    expect(wrapper.path).toMatch(/^test\/stats\.[0-9a-f]{12}\.test\.mjs$/);
    expect(wrapper.content.split("\n")[0]).toBe('import "./stats.test.js";');
    expect(run!.argv).toEqual([
      "node",
      "--test",
      "--test-reporter=junit",
      "--test-reporter-destination=/proc/self/fd/3",
      wrapper.path,
    ]);
    expect(run!.canaries[0]!.id).toMatch(/^test\/stats\.test\.js::[0-9a-f]{12}$/);
    expect(plan.locate("test/stats.test.js::mean > averages numbers")).toEqual({
      run: 0,
      key: "test/stats.test.js::mean > averages numbers",
    });
    expect(plan.locate("test/other.test.js::x")).toBeNull();
  });
});
