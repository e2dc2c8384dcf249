import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostRootLayout } from "./root-layout.ts";

const scratch = mkdtempSync(join(tmpdir(), "gagar-layout-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("hostRootLayout", () => {
  it("recreates merged-/usr symlinks and binds real directories", () => {
    mkdirSync(join(scratch, "bin"));
    symlinkSync("usr/lib", join(scratch, "lib"));
    expect(hostRootLayout(scratch)).toEqual([
      { name: "bin", kind: "dir" },
      { name: "lib", kind: "symlink", target: "usr/lib" },
    ]);
  });

  it("describes this host's /bin", () => {
    const bin = hostRootLayout().find((entry) => entry.name === "bin");
    if (!existsSync("/bin")) expect(bin).toBeUndefined();
    else expect(bin?.kind).toBe(lstatSync("/bin").isSymbolicLink() ? "symlink" : "dir");
  });
});
