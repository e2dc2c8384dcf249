import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  ASSERTION_LIBRARIES,
  handOffLines,
  importedLibraries,
  importedPackages,
  jsHarness,
  NODE_HARNESS,
} from "./harness-surfaces.ts";
import { RUNNERS } from "./registry.ts";

describe("the harness surfaces the Node.js guard watches", () => {
  it("are declared by every runner adapter a Node.js guard runs, and only by those", () => {
    for (const runner of RUNNERS.values()) {
      if (runner.python || runner.name === "junit") expect(runner.harness, runner.name).toEqual([]);
      else expect(runner.harness.length, runner.name).toBeGreaterThan(0);
    }
  });

  it("take the assertion libraries a test module imports, in any module syntax", () => {
    const modules = (text: string) => importedLibraries(text).map((l) => l.module);
    expect(modules('const { expect } = require("chai");\n')).toEqual(["chai"]);
    expect(modules("import * as chai from 'chai';\nimport should from \"should\";\n")).toEqual([
      "chai",
      "should",
    ]);
    expect(modules('import "should";\nconst e = await import("expect");\n')).toEqual(["expect", "should"]);
    expect(modules('const chai = require("chai-as-promised");\nconst x = "chai";\n')).toEqual([]);
  });

  it("take the other packages a test module imports, but no builtin, runner, declared library or relative path", () => {
    const text =
      'const request = require("supertest");\nconst sinon = require("sinon");\nconst { expect } = require("chai");\nconst fs = require("fs");\nconst path = require("node:path");\nconst { describe } = require("mocha");\nconst lib = require("../lib/index.js");\nimport { fromCsv } from "@acme/csv/parse";\n';
    expect(importedPackages(text)).toEqual(["@acme/csv/parse", "sinon", "supertest"]);
    const mocha = RUNNERS.get("mocha")!;
    const run = jsHarness(mocha.harness, new Map([["test/app.spec.js", text]]));
    expect(run.modules).toEqual(["chai"]);
    expect(run.objects.filter((o) => "imported" in o.from)).toEqual(
      ["@acme/csv/parse", "sinon", "supertest"].map((name) => ({
        label: name,
        from: { imported: name, by: "test/app.spec.js" },
        path: [],
      })),
    );
  });

  it("make a run's surface of Node's own objects, the adapter's and the imported libraries'", () => {
    const mocha = RUNNERS.get("mocha")!;
    const run = jsHarness(
      mocha.harness,
      new Map([["test/a.spec.js", 'const { expect } = require("chai");\n']]),
    );
    const chai = ASSERTION_LIBRARIES.find((l) => l.module === "chai")!;
    expect(run.objects).toEqual([...NODE_HARNESS, ...mocha.harness, ...chai.objects]);
    expect(run.modules).toEqual(["chai"]);
    expect(run.objects.map((o) => o.label)).toContain("chai.Assertion.prototype");
    expect(jsHarness(mocha.harness, undefined).modules).toEqual([]);
  });

  it("are handed over by statements that parse as a script or a module", () => {
    const script = handOffLines("require", ["chai"], "afterEach", false).join("\n");
    expect(() => new Script(script)).not.toThrow();
    expect(script).toContain("require.resolve(m), false");
    const module = handOffLines("import", ["chai", "vitest"], null, true).join("\n");
    const dir = mkdtempSync(join(tmpdir(), "gagar-hand-off-"));
    try {
      writeFileSync(join(dir, "hand-off.mjs"), module);
      expect(spawnSync(process.execPath, ["--check", join(dir, "hand-off.mjs")]).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(module).toContain("await import(m), undefined, true");
    expect(module).not.toContain("checkpoint");
  });
});
