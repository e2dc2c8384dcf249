import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { codeSizes, longFunctions } from "./support/code-sizes.ts";

const ROOT = resolve(import.meta.dirname, "..");

/**
 * Functions and files allowed over the limits, each with why and until when. Kept small on purpose: an
 * entry that is no longer over its limit fails the test too, so it is removed as soon as it can be.
 */
const ALLOWED: readonly { at: string; why: string }[] = [];

describe("code sizes (no function over 100 lines, no file over 400, in src/)", () => {
  const sizes = codeSizes(ROOT);
  const offenders = [
    ...sizes.functions.map((f) => ({
      at: `${f.file} ${f.name}`,
      what: `${f.file}:${f.line} ${f.name} (${f.lines} lines)`,
    })),
    ...sizes.files.map((f) => ({ at: f.file, what: `${f.file} (${f.lines} lines)` })),
  ];
  const allowed = new Set(ALLOWED.map((a) => a.at));

  it("has no function or file over the limits outside the allow-list", () => {
    expect(offenders.filter((o) => !allowed.has(o.at)).map((o) => o.what)).toEqual([]);
  });

  it("allows nothing that is no longer over the limits", () => {
    const over = new Set(offenders.map((o) => o.at));
    expect(ALLOWED.filter((a) => !over.has(a.at)).map((a) => a.at)).toEqual([]);
  });

  it("measures functions of every kind, nested ones apart, by their lines", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join("\n");
    const text = [
      `export function atTheLimit(): void {\n  let x = 0;\n${body(97)}\n}`,
      `const arrow = () => {\n${body(99)}\n};`,
      `class C {\n  method() {\n    const inner = function () {\n${body(101)}\n    };\n  }\n}`,
      `function short() {\n${body(98)}\n}`,
    ].join("\n");
    expect(longFunctions("f.ts", text).map((f) => [f.name, f.lines])).toEqual([
      ["arrow", 101],
      ["method", 105],
      ["inner", 103],
    ]);
  });
});
