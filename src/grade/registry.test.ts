import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { createGrader, graderNames, registerGrader } from "./registry.ts";
import { createStaticGrader } from "./static/grader.ts";

describe("grader registry", () => {
  it("builds the static grader by name, passing its options through", () => {
    expect(graderNames()).toContain("static");
    const grader = createGrader("static", { tieMargin: 0 });
    expect(grader.name).toBe("static");
    expect(grader.version).not.toBe(createStaticGrader().version);
  });

  it("names the known graders when asked for an unknown one", () => {
    expect(() => createGrader("smallest-patch")).toThrow(ConfigError);
    expect(() => createGrader("smallest-patch")).toThrow(`known graders: ${graderNames().join(", ")}`);
  });

  it("lets new graders register once, and lists names sorted", () => {
    registerGrader("zz-registry-test", () => createStaticGrader());
    expect(createGrader("zz-registry-test").name).toBe("static");
    expect(() => registerGrader("zz-registry-test", () => createStaticGrader())).toThrow(
      /already registered/,
    );
    expect(graderNames()).toEqual([...graderNames()].sort());
  });
});
