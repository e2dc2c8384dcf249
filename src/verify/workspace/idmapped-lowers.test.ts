import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mountsBelow } from "../session/stale-sessions.ts";
import { IdmappedLowers } from "./idmapped-lowers.ts";

const root = mkdtempSync(join(tmpdir(), "gagar-idmap-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

function snapshot(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "mod.py"), "x = 1\n");
  return dir;
}

describe.runIf(isRoot)("IdmappedLowers", () => {
  it("shows a snapshot as owned by each uid, reusing a view per (snapshot, uid)", async () => {
    const lowers = new IdmappedLowers();
    try {
      const snap = snapshot("one");
      const a = await lowers.view(snap, 61491);
      const b = await lowers.view(snap, 61492);
      expect(await lowers.view(snap, 61491)).toBe(a);
      expect(statSync(join(a!, "mod.py")).uid).toBe(61491);
      expect(statSync(join(b!, "mod.py")).uid).toBe(61492);
      expect(statSync(join(snap, "mod.py")).uid).toBe(0);
    } finally {
      await lowers.close();
    }
    expect(mountsBelow(root)).toEqual([]);
  });

  it("keeps views of the 8 most recently used snapshots only", async () => {
    const lowers = new IdmappedLowers();
    try {
      const snaps = Array.from({ length: 9 }, (_, i) => snapshot(`lru-${i}`));
      for (const snap of snaps) await lowers.view(snap, 61493);
      await lowers.view(snaps[1]!, 61493); // used again: the oldest is now snaps[2]
      await lowers.view(snapshot("lru-9"), 61493);
      await lowers.settled(); // eviction unmounts in the background
      const mounted = mountsBelow(root).map((m) => m.slice(root.length + 1));
      expect(mounted).not.toContain("lru-0-as-61493");
      expect(mounted).not.toContain("lru-2-as-61493");
      expect(mounted).toContain("lru-1-as-61493");
      expect(mounted).toContain("lru-9-as-61493");
      expect(mounted).toHaveLength(8);
    } finally {
      await lowers.close();
    }
    expect(mountsBelow(root)).toEqual([]);
  });
});
