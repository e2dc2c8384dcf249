import { describe, expect, it } from "vitest";
import { globToRegExp } from "./glob.ts";

const match = (pattern: string, path: string) => globToRegExp(pattern).test(path);

describe("globToRegExp", () => {
  it("matches a bare name at any depth", () => {
    expect(match("conftest.py", "conftest.py")).toBe(true);
    expect(match("conftest.py", "a/b/conftest.py")).toBe(true);
    expect(match("conftest.py", "a/b/conftest.pyc")).toBe(false);
    expect(match("conftest.py", "xconftest.py")).toBe(false);
  });

  it("anchors patterns that contain a slash at the root", () => {
    expect(match("tests/data.json", "tests/data.json")).toBe(true);
    expect(match("tests/data.json", "pkg/tests/data.json")).toBe(false);
  });

  it("lets * stay inside one segment and ** cross segments", () => {
    expect(match("src/*.py", "src/a.py")).toBe(true);
    expect(match("src/*.py", "src/x/a.py")).toBe(false);
    expect(match("src/**/*.py", "src/a.py")).toBe(true);
    expect(match("src/**/*.py", "src/x/y/a.py")).toBe(true);
    expect(match("**/conftest.py", "conftest.py")).toBe(true);
  });

  it("protects everything below a directory pattern", () => {
    expect(match(".github/", ".github/workflows/ci.yml")).toBe(true);
    expect(match(".github/", ".github")).toBe(false);
    expect(match("fixtures", "tests/fixtures/a.txt")).toBe(true);
  });

  it("treats regex metacharacters literally", () => {
    expect(match("a+b.(x)", "a+b.(x)")).toBe(true);
    expect(match("a+b.(x)", "aab.(x)")).toBe(false);
  });
});
