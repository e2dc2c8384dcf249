import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeTask } from "../../../test/support/task-fixture.ts";
import { selectBackend } from "../../sandbox/select.ts";
import { loadTaskPack } from "../pack/task-pack.ts";
import { mountsBelow } from "../session/stale-sessions.ts";
import { Verifier } from "../verifier.ts";
import { IdmappedLowers } from "../workspace/idmapped-lowers.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-setup-views-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CALC = "def div(a, b):\n    return a / b\n";
const FIXED = 'def div(a, b):\n    if b == 0:\n        raise ValueError("zero")\n    return a / b\n';

/** Every `*-as-<uid>` folder in the environment cache, two levels down (`<digest>/tree-as-<uid>`). */
function viewPoints(cache: string): string[] {
  return readdirSync(cache, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => readdirSync(join(cache, e.name)).map((n) => `${e.name}/${n}`))
    .filter((p) => /-as-\d+$/.test(p));
}

const probe = process.getuid?.() === 0 ? await IdmappedLowers.probe() : { ok: false, why: "not root" };

describe.skipIf(!probe.ok)("a setup environment's tree in the shared cache, over several sessions", () => {
  it("is left without mount points, so the next session keeps its idmapped workspaces", async () => {
    const cache = join(root, "cache");
    const pack = loadTaskPack(
      writeTask(join(root, "tasks"), {
        id: "calc-setup",
        spec: {
          statement: "div by zero raises",
          language: "python",
          test: { runner: "pytest" },
          environment: { kind: "setup", commands: [["python3", "-c", "open('built.txt', 'w').write('ok')"]] },
          failToPass: ["tests/test_calc.py::test_zero"],
        },
        repo: { "calc.py": CALC },
        tests: {
          "tests/test_calc.py":
            "import pytest\n\nfrom calc import div\n\n\ndef test_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n",
        },
        reference: { "calc.py": FIXED },
      }),
    );
    const session = async () => {
      const warnings: string[] = [];
      const verifier = new Verifier({
        sandbox: await selectBackend("bwrap"),
        environmentCache: cache,
        warn: (m) => warnings.push(m),
      });
      try {
        const outcome = await verifier.verify(pack, pack.referencePatch!);
        expect(outcome.reason, outcome.outputTail).toBe("passed");
      } finally {
        await verifier.close();
      }
      return warnings;
    };
    expect(await session()).toEqual([]);
    expect(viewPoints(cache)).toEqual([]);
    expect(mountsBelow(cache)).toEqual([]);
    // What sessions of earlier versions left beside the tree is cleared, and does not get in the way.
    const [digest] = readdirSync(cache).filter((n) => !n.startsWith("."));
    mkdirSync(join(cache, digest!, "tree-as-61000"));
    expect(await session()).toEqual([]);
    expect(viewPoints(cache)).toEqual([]);
  }, 180_000);
});
