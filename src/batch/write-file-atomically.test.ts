import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomically } from "./write-file-atomically.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gagar-atomic-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeFileAtomically", () => {
  it("writes the bytes, replacing an existing file, and leaves no temp file", () => {
    const path = join(dir, "out.bin");
    writeFileSync(path, "old");
    writeFileAtomically(path, new Uint8Array([0, 1, 2, 255]));
    expect([...readFileSync(path)]).toEqual([0, 1, 2, 255]);
    expect(readdirSync(dir)).toEqual(["out.bin"]);
  });

  it("removes its temp file when the final rename fails", () => {
    const path = join(dir, "taken");
    mkdirSync(join(path, "child"), { recursive: true });
    expect(() => writeFileAtomically(path, new Uint8Array([1]))).toThrow();
    expect(readdirSync(dir)).toEqual(["taken"]);
  });
});
