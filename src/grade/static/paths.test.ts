import { describe, expect, it } from "vitest";
import { isTestRole, pathRole } from "./paths.ts";

const role = (path: string, added = false, changedText: string[] = []) =>
  pathRole({ path, added, changedText });

describe("pathRole", () => {
  it("recognises test files across ecosystems", () => {
    for (const path of [
      "tests/test_slug.py",
      "test/test_YoutubeDL.py",
      "pkg/util_test.go",
      "src/__tests__/format.js",
      "src/format.test.ts",
      "gson/src/test/java/com/google/gson/GsonTest.java",
      "spec/models/user_spec.rb",
    ]) {
      expect(role(path), path).toBe("test");
    }
  });

  it("separates snapshots from other tests", () => {
    expect(role("tests_integration/__tests__/__snapshots__/write.js.snap")).toBe("snapshot");
    expect(isTestRole("snapshot")).toBe(true);
    expect(isTestRole("runner")).toBe(false);
  });

  it("treats files that decide how tests run as runner configs", () => {
    expect(role("conftest.py")).toBe("runner");
    expect(role("tests/conftest.py")).toBe("runner");
    expect(role("vitest.config.ts")).toBe("runner");
    expect(role("lib/python3.11/site-packages/evil.pth")).toBe("runner");
    expect(role("sitecustomize.py")).toBe("runner");
  });

  it("treats shared build files as runner configs only when the change is about tests", () => {
    expect(role("package.json", false, ['    "test": "jest --passWithNoTests"'])).toBe("runner");
    expect(role("package.json", false, ['    "lodash": "^4.17.21"'])).toBe("source");
    expect(role("pyproject.toml", false, ['addopts = "-p no:randomly"'])).toBe("runner");
    expect(role("pom.xml", false, ["<skipTests>true</skipTests>"])).toBe("runner");
  });

  it("knows CI, docs, junk and scratch scripts", () => {
    expect(role(".github/workflows/ci.yml")).toBe("ci");
    expect(role("README.md")).toBe("docs");
    expect(role("changelog_unreleased/html/14400.md")).toBe("docs");
    expect(role("src/cli-util.js.orig")).toBe("junk");
    expect(role("yt_dlp/__pycache__/utils.cpython-311.pyc")).toBe("junk");
    expect(role("dist/bundle.js", true)).toBe("junk");
    expect(role("dist/bundle.js", false)).toBe("source");
    expect(role("reproduce_issue.py", true)).toBe("scratch");
    expect(role("scripts/reproduce_issue.py", true)).toBe("source");
  });
});
