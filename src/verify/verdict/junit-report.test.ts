import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJunit, ReportError } from "./junit-report.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/verify/reports/${name}`, import.meta.url), "utf8");

describe("parseJunit", () => {
  it("reads a real pytest xunit1 report with every outcome", () => {
    const cases = parseJunit(fixture("pytest-xunit1.xml"));
    const byName = Object.fromEntries(cases.map((c) => [`${c.classname}/${c.name}`, c]));
    expect(cases).toHaveLength(10);
    expect(byName["tests.test_k/test_a"]).toMatchObject({
      status: "passed",
      file: "tests/test_k.py",
      suites: ["pytest"],
    });
    expect(byName["tests.test_k/test_f"]?.status).toBe("failed");
    expect(byName["tests.test_k/test_f"]?.message).toContain("AssertionError: boom\nassert 1 == 2");
    expect(byName["tests.test_k/test_x"]?.status).toBe("xfail");
    expect(byName["tests.test_k/test_s"]?.status).toBe("skipped");
    expect(byName["tests.test_k/test_e"]?.status).toBe("error");
    expect(byName["tests.test_k/test_p[a/b::c]"]?.status).toBe("passed");
    expect(byName["tests.test_k.TestInherit/test_base"]?.file).toBe("tests/base.py");
  });

  it("reads a real node:test junit report with nested suites", () => {
    const cases = parseJunit(fixture("node-junit.xml"));
    const summary = cases.map((c) => `${[...c.suites, c.name].join(" > ")} = ${c.status}`);
    expect(summary).toEqual([
      "top level = failed",
      "top level = passed",
      "top > weird &quot;name&quot; <x> = passed",
      "suite > adds = passed",
      "suite > fails = failed",
      "suite > skipped = skipped",
      "suite > todo one = skipped",
      "suite > inner > deep = passed",
    ]);
  });

  it("reads a bare <testsuite> root and an empty report", () => {
    expect(parseJunit('<testsuite name="s"><testcase classname="c" name="n"/></testsuite>')).toEqual([
      { name: "n", classname: "c", suites: ["s"], status: "passed", message: "", timeSec: 0 },
    ]);
    expect(parseJunit("<testsuites/>")).toEqual([]);
  });

  it("flags a second document as injected", () => {
    const one = '<?xml version="1.0"?><testsuites><testcase classname="c" name="x>"/></testsuites>';
    const error = catchError(() => parseJunit(one + one));
    expect(error).toBeInstanceOf(ReportError);
    expect(error).toMatchObject({ injected: true });
    expect(catchError(() => parseJunit("<testsuites/>\n<testsuites/>"))).toMatchObject({ injected: true });
  });

  it("rejects DTDs, junk and foreign roots without calling them injected", () => {
    const dtd = '<!DOCTYPE a [<!ENTITY x "y">]><testsuites name="&x;"/>';
    expect(catchError(() => parseJunit(dtd))).toMatchObject({
      injected: false,
      message: "report declares a DTD",
    });
    expect(catchError(() => parseJunit("<testsuites><testcase></testsuites>"))).toMatchObject({
      injected: false,
    });
    expect(catchError(() => parseJunit(""))).toMatchObject({ message: "report has no root element" });
    expect(catchError(() => parseJunit("<html/>"))).toMatchObject({
      message: "unexpected report root <html>",
    });
    expect(catchError(() => parseJunit("<testsuites></testsuites>garbage"))).toBeInstanceOf(ReportError);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error");
}
