import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The walk of one rollout through verification, as ARCHITECTURE.md lists it ("The walk of one rollout
 * through verification"): every stop names a file of src/ and a function defined there, and is
 * called from a stop before it; `verifyCandidate` calls no function of another file that is not a
 * stop (so a stage added there must be added to the walk). Measured: the number of stops, of files,
 * and how many times the walk enters each file (consecutive stops in one file are one entry).
 */
const ROOT = resolve(import.meta.dirname, "..");
const architecture = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");

interface Stop {
  file: string;
  fn: string;
}

function walk(): Stop[] {
  const section = architecture.split("### The walk of one rollout through verification")[1]?.split(/\n#/)[0];
  if (!section) throw new Error("ARCHITECTURE.md has no walk of one rollout");
  return [...section.matchAll(/^\d+\. `([^`]+)` `([^`]+)`/gm)].map((m) => ({
    file: `src/${m[1]}`,
    fn: m[2]!,
  }));
}

const source = (file: string) => readFileSync(join(ROOT, file), "utf8");
/** A function, method or function-valued property named `fn`, defined in `text`. */
const defines = (text: string, fn: string) =>
  new RegExp(
    `(function\\s+${fn}\\b|^\\s*(async\\s+)?${fn}(<[^>]*>)?\\(|^\\s*(get\\s+)?${fn}\\s*[:=(])`,
    "m",
  ).test(text);
const calls = (text: string, fn: string) =>
  new RegExp(`(^|[^\\w])${fn}(<[^>]*>)?\\(`).test(text.replace(/^\s*(\/\/|\*).*$/gm, ""));

/** Stops, files, and the entries per file of a walk. */
function measureWalk(stops: readonly Stop[]): {
  stops: number;
  files: number;
  entries: Map<string, number>;
} {
  const entries = new Map<string, number>();
  stops.forEach((stop, i) => {
    if (i === 0 || stops[i - 1]!.file !== stop.file)
      entries.set(stop.file, (entries.get(stop.file) ?? 0) + 1);
  });
  return { stops: stops.length, files: entries.size, entries };
}

describe("the walk of one rollout through verification", () => {
  const stops = walk();

  it("names functions that exist, each called from a stop before it", () => {
    expect(stops[0]).toEqual({ file: "src/verify/verify-rollouts.ts", fn: "verifyRollouts" });
    stops.forEach((stop, i) => {
      expect(existsSync(join(ROOT, stop.file)), stop.file).toBe(true);
      expect(defines(source(stop.file), stop.fn), `${stop.fn} in ${stop.file}`).toBe(true);
      if (i > 0)
        expect(
          stops.slice(0, i).some((earlier) => calls(source(earlier.file), stop.fn)),
          `${stop.fn} (${stop.file}) is called from an earlier stop`,
        ).toBe(true);
    });
  });

  it("has every call verifyCandidate makes into another file of verify/ as a stop", () => {
    const text = source("src/verify/verify-candidate.ts");
    const body = text.slice(text.indexOf("export async function verifyCandidate"));
    const fnBody = body.slice(0, body.indexOf("\n}\n"));
    const imported = [...text.matchAll(/import \{([^}]*)\} from "\.\/[^"]+"/g)]
      .flatMap((m) => m[1]!.split(","))
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith("type "));
    const called = imported.filter((name) => calls(fnBody, name));
    expect(called.length).toBeGreaterThan(0);
    for (const name of called)
      expect(
        stops.map((s) => s.fn),
        name,
      ).toContain(name);
    expect(calls(fnBody, "run")).toBe(true);
    expect(stops.map((s) => s.fn)).toContain("run");
  });

  it("counts an entry each time the walk comes back to a file it left", () => {
    const at = (file: string) => ({ file, fn: "f" });
    const measured = measureWalk([at("a"), at("a"), at("b"), at("a"), at("c"), at("a")]);
    expect([measured.stops, measured.files, measured.entries.get("a")]).toEqual([6, 3, 3]);
  });

  it("stops at most 15 times and enters no file more than twice", () => {
    const measured = measureWalk(stops);
    expect(measured.stops).toBeLessThanOrEqual(15);
    for (const [file, n] of measured.entries) expect(n, file).toBeLessThanOrEqual(2);
    // The figures ARCHITECTURE.md states.
    expect(architecture).toContain(`${measured.stops} stops in ${measured.files} files`);
  });
});
