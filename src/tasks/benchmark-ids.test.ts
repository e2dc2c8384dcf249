import { describe, expect, it } from "vitest";
import { toTaskId } from "./benchmark-ids.ts";

describe("toTaskId", () => {
  it("keeps SWE-bench pytest ids and maps SWE-PolyBench's single colons", () => {
    expect(toTaskId("tests/test_x.py::TestK::test_m[a-b]", "pytest")).toBe(
      "tests/test_x.py::TestK::test_m[a-b]",
    );
    expect(toTaskId("tests/test_x.py:TestK:test_m", "pytest")).toBe("tests/test_x.py::TestK::test_m");
    expect(toTaskId("test/unit/yt.py:test_extract", "pytest")).toBe("test/unit/yt.py::test_extract");
  });

  it("turns the parts after the file into a describe path for JavaScript runners", () => {
    expect(toTaskId("test/a.test.js:Suite:does it", "mocha")).toBe("test/a.test.js::Suite > does it");
    expect(toTaskId("src/x.spec.ts::outer::inner", "jest")).toBe("src/x.spec.ts::outer > inner");
  });

  it("splits only the file and class parts off SWE-PolyBench ids: a test name keeps its colons", () => {
    expect(toTaskId("tests/test_x.py:TestK:test_m[a:b]", "pytest")).toBe(
      "tests/test_x.py::TestK::test_m[a:b]",
    );
    expect(toTaskId("tests/test_x.py:test_m[a:b:c]", "pytest")).toBe("tests/test_x.py::test_m[a:b:c]");
    expect(toTaskId("tests/test_x.py:TestK:TestL:test_m", "pytest")).toBe(
      "tests/test_x.py::TestK::TestL::test_m",
    );
    expect(toTaskId("test/a.test.js:Suite:handles key: value pairs", "mocha")).toBe(
      "test/a.test.js::Suite > handles key: value pairs",
    );
    expect(toTaskId("test/a.test.js:plain title", "jest")).toBe("test/a.test.js::plain title");
  });

  it("leaves ids without a file alone (mocha titles, junit classnames, Multi-SWE-bench names)", () => {
    expect(toTaskId("Numeral Format should format", "mocha")).toBe("Numeral Format should format");
    expect(toTaskId("com.example.FooTest", "junit")).toBe("com.example.FooTest");
    expect(toTaskId("a.b.C::m", "junit")).toBe("a.b.C::m");
  });
});
