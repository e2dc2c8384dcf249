import { describe, expect, it } from "vitest";
import { patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { projectUsage } from "./project-usage.ts";
import type { Workspace } from "./workspace.ts";

const view = (path: string, lines: string[]) =>
  viewCandidate("c", patch({ path, hunks: [{ at: 3, lines }] }));

describe("projectUsage", () => {
  it("finds text in the original library code the patches show", () => {
    const uses = projectUsage(
      [view("lib/a.js", ["   console.warn('old');", "+  x();", "-  console.info(y);"])],
      null,
    );
    expect(uses("console.warn(")).toBe(true);
    expect(uses("console.info(")).toBe(true);
    expect(uses("x(")).toBe(false); // added by the patch, not there before
  });

  it("reads the workspace's library code, not its scripts or tests", () => {
    const workspace = {
      librarySourceText: () => "module.exports = () => console.error('x');\n",
    } as Workspace;
    const views = [
      view("bin/cli.js", ["   console.log('usage');", "+  run();"]),
      view("test/a.js", ["   console.dir(x);"]),
    ];
    const uses = projectUsage(views, workspace);
    expect(uses("console.error(")).toBe(true);
    expect(uses("console.log(")).toBe(false);
    expect(uses("console.dir(")).toBe(false);
  });
});
