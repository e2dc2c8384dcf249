import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWorkspace } from "./workspace.ts";

const limits = { maxFiles: 1000, maxBytes: 1 << 20 };
const fixture = join(import.meta.dirname, "../../../test/fixtures/grade/workspace-py");

describe("openWorkspace", () => {
  it("returns null for a missing, unset or non-directory workspace", () => {
    expect(openWorkspace(undefined, limits)).toBeNull();
    expect(openWorkspace(join(fixture, "nope"), limits)).toBeNull();
    expect(openWorkspace(join(fixture, "textkit/slug.py"), limits)).toBeNull();
  });

  it("reads files, visible tests and identifiers of the repository", () => {
    const ws = openWorkspace(fixture, limits)!;
    expect(ws.readFile("textkit/slug.py")).toMatch(/def slugify/);
    expect(ws.testText()).toMatch(/"hello-world"/);
    expect(ws.testText()).not.toMatch(/def slugify/);
    expect(ws.hasWord("title_words")).toBe(true);
    expect(ws.hasWord("collapse_dashes")).toBe(false);
  });

  it("tells library code from scripts and tests", () => {
    const tree = mkdtempSync(join(tmpdir(), "gagar-lib-"));
    try {
      mkdirSync(join(tree, "lib"));
      mkdirSync(join(tree, "bin"));
      mkdirSync(join(tree, "test"));
      writeFileSync(join(tree, "lib/a.js"), "console.warn('library');\n");
      writeFileSync(join(tree, "bin/cli.js"), "console.error('script');\n");
      writeFileSync(join(tree, "test/a.js"), "console.info('test');\n");
      const ws = openWorkspace(tree, limits)!;
      expect(ws.librarySourceText()).toMatch(/library/);
      expect(ws.librarySourceText()).not.toMatch(/script|test/);
      expect(ws.sourceText()).toMatch(/script/);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  describe("on a hostile tree", () => {
    const root = mkdtempSync(join(tmpdir(), "gagar-ws-"));
    const outside = mkdtempSync(join(tmpdir(), "gagar-outside-"));
    afterAll(() => {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    });
    writeFileSync(join(outside, "secret.py"), "SECRET_TOKEN = 1\n");
    mkdirSync(join(root, "pkg"));
    writeFileSync(join(root, "pkg/ok.py"), "def visible(): pass\n");
    symlinkSync(join(outside, "secret.py"), join(root, "pkg/link.py"));
    symlinkSync(outside, join(root, "linkdir"));
    writeFileSync(join(root, "pkg/blob.py"), Buffer.from([0x70, 0x00, 0x01]));

    it("never follows symlinks or leaves the root, and skips binary files", () => {
      const ws = openWorkspace(root, limits)!;
      expect(ws.readFile("pkg/ok.py")).toMatch(/visible/);
      expect(ws.readFile("pkg/link.py")).toBeNull();
      expect(ws.readFile("linkdir/secret.py")).toBeNull();
      expect(ws.readFile(`../${outside.split("/").pop()}/secret.py`)).toBeNull();
      expect(ws.readFile("pkg/blob.py")).toBeNull();
      expect(ws.hasWord("visible")).toBe(true);
      expect(ws.hasWord("SECRET_TOKEN")).toBe(false);
    });

    it("stops at the file and byte caps, cutting the same files every time", () => {
      const capped = mkdtempSync(join(tmpdir(), "gagar-cap-"));
      try {
        writeFileSync(join(capped, "a.py"), "first = 1\n");
        writeFileSync(join(capped, "b.py"), "second = 2\n");
        const byFiles = openWorkspace(capped, { maxFiles: 1, maxBytes: 1 << 20 })!;
        expect([byFiles.hasWord("first"), byFiles.hasWord("second")]).toEqual([true, false]);
        const byBytes = openWorkspace(capped, { maxFiles: 10, maxBytes: 5 })!;
        expect([byBytes.hasWord("first"), byBytes.hasWord("second")]).toEqual([true, false]);
      } finally {
        rmSync(capped, { recursive: true, force: true });
      }
    });
  });
});
