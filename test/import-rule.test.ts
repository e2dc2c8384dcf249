import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The one-way import rule of ARCHITECTURE.md, checked on every source file (tests and test support
 * may import anything): `cli`/`server` → `report`/`experiment` → `pipeline` → stages → seams →
 * `contracts`/`errors`. A folder imports its own files and any folder of a lower layer; stages may use
 * each other, seams each other; `advantage/` imports only contracts and errors.
 */
const SRC = resolve(import.meta.dirname, "../src");

const LAYERS: Record<string, number> = {
  contracts: 0,
  "errors.ts": 0,
  "version.ts": 0,
  ...Object.fromEntries(
    ["sandbox", "llm", "store", "queue", "io", "config", "concurrency", "diff", "hacks"].map((s) => [s, 1]),
  ),
  ...Object.fromEntries(
    ["sampling", "rollout", "tasks", "verify", "grade", "probe", "advantage", "batch", "metrics"].map((s) => [
      s,
      2,
    ]),
  ),
  pipeline: 3,
  report: 4,
  experiment: 4,
  cli: 5,
  server: 5,
  "index.ts": 6,
};

/** Folders whose imports are narrower than their layer's. */
const ONLY: Record<string, readonly string[]> = { advantage: ["contracts", "errors.ts"] };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "testing" ? [] : sourceFiles(path);
    return /\.ts$/.test(e.name) && !/\.test\.ts$|\.test-suite\.ts$|\.test-support\.ts$/.test(e.name)
      ? [path]
      : [];
  });
}

/** The relative modules a file imports or re-exports (type-only ones included). */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/g))
    found.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)) found.push(m[1]!);
  return found;
}

const top = (path: string) => relative(SRC, path).split("/")[0]!;

function importRuleBreaks(): string[] {
  const breaks: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = top(file);
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(`${SRC}/`)) continue;
      const to = top(target);
      if (to === from) continue;
      const only = ONLY[from];
      const allowed = only ? only.includes(to) : (LAYERS[to] ?? Infinity) <= (LAYERS[from] ?? -1);
      if (!allowed) breaks.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  return breaks;
}

describe("the import rule", () => {
  it("knows the layer of every top-level folder of src/", () => {
    const unknown = readdirSync(SRC).filter((name) => !(name in LAYERS) && !name.endsWith(".test.ts"));
    expect(unknown).toEqual([]);
  });

  it("holds in every source file: no import goes up a layer", () => {
    expect(importRuleBreaks()).toEqual([]);
  });

  it("reads imports and re-exports, on one line or several", () => {
    expect(
      importsOf('import {\n  renderTable,\n} from "../cli/table.ts";\nexport type { X } from "./x.ts";'),
    ).toEqual(["../cli/table.ts", "./x.ts"]);
  });
});
