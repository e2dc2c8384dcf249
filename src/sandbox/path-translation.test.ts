import { describe, expect, it } from "vitest";
import { translatePaths } from "./path-translation.ts";

const table = new Map([
  ["/workspace", "/host/ws"],
  ["/out", "/host/out"],
  ["/opt/env", "/store/env"],
]);

describe("translatePaths", () => {
  it("rewrites sandbox paths where a path starts", () => {
    expect(translatePaths("/workspace/tests/test_a.py", table)).toBe("/host/ws/tests/test_a.py");
    expect(translatePaths("--junitxml=/out/report.xml", table)).toBe("--junitxml=/host/out/report.xml");
    expect(translatePaths("/opt/env/bin:/usr/bin", table)).toBe("/store/env/bin:/usr/bin");
    expect(translatePaths("cd /workspace && echo x > /out/r", table)).toBe(
      "cd /host/ws && echo x > /host/out/r",
    );
    expect(translatePaths("/workspace", table)).toBe("/host/ws");
  });

  it("leaves look-alikes alone", () => {
    for (const value of ["/workspaces/x", "/output", "a/workspace/b", "x/out", "/opt/environment"]) {
      expect(translatePaths(value, table)).toBe(value);
    }
  });
});
