import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/errors.ts";
import { loadManifest, MANIFEST_PATH } from "./manifest.ts";
import { applyEdits, loadVariants, VARIANTS_PATH } from "./variants.ts";

/** The honest variants' pure parts; the probes on them are test/probe-fidelity.network.test.ts. */

const manifest = loadManifest(fileURLToPath(MANIFEST_PATH));
const scratch = mkdtempSync(join(tmpdir(), "gagar-variants-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("applyEdits", () => {
  it("replaces text that occurs once, in order, and refuses text that is absent or repeated", () => {
    expect(
      applyEdits(
        "a = 1\nb = 2\n",
        [
          { find: "1", replace: "one" },
          { find: "one\nb", replace: "x" },
        ],
        "f",
      ),
    ).toBe("a = x = 2\n");
    expect(() => applyEdits("abc", [{ find: "z", replace: "" }], "t.py")).toThrow(
      "t.py, edit 0: the text to replace is not in the file",
    );
    expect(() => applyEdits("abab", [{ find: "ab", replace: "" }], "t.py")).toThrow("occurs more than once");
  });

  it("replaces exactly the one occurrence, keeping what is around it", () => {
    const noMarker = fc.string().map((t) => t.replaceAll("\u0000", ""));
    fc.assert(
      fc.property(noMarker, noMarker, noMarker, (before, replace, after) => {
        const text = `${before}\u0000${after}`;
        expect(applyEdits(text, [{ find: "\u0000", replace }], "p")).toBe(`${before}${replace}${after}`);
      }),
    );
  });
});

describe("variants.json", () => {
  it("names tasks of the manifest only, and every task has an honest variant", () => {
    const variants = loadVariants(fileURLToPath(VARIANTS_PATH), manifest);
    const tasks = manifest.repositories.flatMap((r) => r.tasks.map((t) => t.id));
    for (const id of tasks) expect(variants.tasks[id]?.length ?? 0, id).toBeGreaterThan(0);
  });

  it("refuses an unknown task and a repeated variant id, naming the file and the field", () => {
    const file = join(scratch, "variants.json");
    const variant = {
      id: "v",
      about: "x",
      from: "fix",
      edits: [{ path: "src/a.py", find: "a", replace: "b" }],
    };
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, tasks: { "no-such-task": [variant] } }));
    expect(() => loadVariants(file, manifest)).toThrow(InputError);
    expect(() => loadVariants(file, manifest)).toThrow(/tasks\.no-such-task/);
    const task = manifest.repositories[0]!.tasks[0]!.id;
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, tasks: { [task]: [variant, variant] } }));
    expect(() => loadVariants(file, manifest)).toThrow(new RegExp(`tasks\\.${task}\\.1\\.id`));
  });
});
