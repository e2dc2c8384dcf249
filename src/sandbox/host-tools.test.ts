import { describe, expect, it } from "vitest";
import { findTool, findTools, TOOL_PACKAGES, versionOf } from "./host-tools.ts";

describe("host tools", () => {
  it("finds tools in the system directories only", () => {
    expect(findTool("sh")).toMatch(/^\/(usr\/)?s?bin\/sh$/);
  });

  it("names the package that provides each missing tool", () => {
    const { paths, missing } = findTools(["sh", "env"]);
    expect(Object.keys(paths).sort()).toEqual(["env", "sh"]);
    expect(missing).toEqual([]);
    for (const pkg of Object.values(TOOL_PACKAGES)) expect(pkg).toMatch(/^[a-z0-9.+-]+$/);
  });

  it("reads a tool's version line", () => {
    const env = findTool("env");
    expect(env && versionOf(env)).toMatch(/coreutils/);
    expect(versionOf("/nonexistent")).toBeUndefined();
  });
});
