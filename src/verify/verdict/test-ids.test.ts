import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsId, suiteTitles } from "../runners/js-ids.ts";
import { parseJunit } from "./junit-report.ts";
import { indexCases, pytestCaseId, pytestCaseKey, pytestKey, statusOf } from "./test-ids.ts";

const nodeCaseId = (file: string, c: Parameters<typeof suiteTitles>[0]) => jsId(file, suiteTitles(c));

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/verify/reports/${name}`, import.meta.url), "utf8");

describe("pytest ids", () => {
  const cases = parseJunit(fixture("pytest-xunit1.xml"));
  const index = indexCases(cases, (c) => [pytestCaseKey(c)]);
  const status = (id: string) => statusOf(index.get(pytestKey(id)));

  it("finds expected ids exactly, including classes, nested classes and parameters", () => {
    expect(status("tests/test_k.py::test_a")).toBe("passed");
    expect(status("tests/test_k.py::test_f")).toBe("failed");
    expect(status("tests/test_k.py::TestK::test_m")).toBe("passed");
    expect(status("tests/test_k.py::TestK::TestInner::test_n")).toBe("passed");
    expect(status("tests/test_k.py::test_p[a/b::c]")).toBe("passed");
    expect(status("tests/test_k.py::test_x")).toBe("xfail");
    expect(status("tests/test_k.py::test_s")).toBe("skipped");
    expect(status("tests/test_k.py::test_e")).toBe("error");
    expect(status("tests/test_k.py::TestInherit::test_base")).toBe("passed");
  });

  it("never matches by substring or prefix", () => {
    expect(status("tests/test_k.py::test_p")).toBe("missing");
    expect(status("tests/test_k.py::test_")).toBe("missing");
    expect(status("test_k.py::test_a")).toBe("missing");
    expect(status("tests/test_k.py::TestK")).toBe("missing");
    expect(status("tests/test_k.py::test_a[x]")).toBe("missing");
  });

  it("rebuilds node ids from file and classname", () => {
    expect(cases.map(pytestCaseId)).toEqual([
      "tests/test_k.py::test_a",
      "tests/test_k.py::test_f",
      "tests/test_k.py::test_p[a/b::c]",
      "tests/test_k.py::test_p[d]",
      "tests/test_k.py::TestK::test_m",
      "tests/test_k.py::TestK::TestInner::test_n",
      "tests/test_k.py::test_x",
      "tests/test_k.py::test_s",
      "tests/test_k.py::test_e",
      // Defined in tests/base.py, so `file` does not agree with the classname: fall back to it.
      "tests.test_k.TestInherit::test_base",
    ]);
  });
});

describe("node:test ids", () => {
  it("joins describe blocks with ' > ' under the file that was run", () => {
    const cases = parseJunit(fixture("node-junit.xml"));
    const ids = cases.map((c) => nodeCaseId("test/math.test.js", c));
    expect(ids).toContain("test/math.test.js::suite > inner > deep");
    expect(ids).toContain("test/math.test.js::suite > adds");
    expect(ids).toContain('test/math.test.js::top > weird "name" <x>');
  });

  it("combines duplicate ids so that one failing instance fails the id", () => {
    const cases = parseJunit(fixture("node-junit.xml"));
    const index = indexCases(cases, (c) => [nodeCaseId("t.js", c)]);
    expect(index.get("t.js::top level")).toMatchObject({ status: "failed", count: 2 });
    expect(statusOf(index.get("t.js::suite > adds"))).toBe("passed");
    expect(statusOf(index.get("t.js::suite > todo one"))).toBe("skipped");
    expect(statusOf(index.get("t.js::adds"))).toBe("missing");
  });
});
