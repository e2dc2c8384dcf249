import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReplaySource } from "./replay.ts";

function recorded(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), "gagar-replay-"));
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `r${i}`, taskId: "t", patch: "" }),
  );
  writeFileSync(join(dir, "t.jsonl"), `${lines.join("\n")}\n`);
  return dir;
}

const request = { taskId: "t", statement: "", repoDir: "/nonexistent", groupId: "g", count: 3 };

describe("ReplaySource", () => {
  it("draws without replacement within an epoch, deterministically", async () => {
    const source = new ReplaySource(recorded(10), 7);
    const groups = await Promise.all([0, 1, 2].map((k) => source.generate({ ...request, drawIndex: k })));
    const ids = groups.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(9);
    const again = await new ReplaySource(recorded(10), 7).generate({ ...request, drawIndex: 1 });
    expect(again.map((r) => r.id)).toEqual(groups[1]!.map((r) => r.id));
  });

  it("starts a new epoch when one is used up", async () => {
    const source = new ReplaySource(recorded(4), 1);
    const first = await source.generate({ ...request, drawIndex: 0 });
    const second = await source.generate({ ...request, drawIndex: 1 });
    expect(new Set(first.map((r) => r.id)).size).toBe(3);
    expect(new Set(second.map((r) => r.id)).size).toBe(3);
  });

  it("says so when a task has too few recordings or none", async () => {
    await expect(new ReplaySource(recorded(2), 1).generate({ ...request, drawIndex: 0 })).rejects.toThrow(
      /has 2 recorded rollouts.*at least 3/,
    );
    await expect(
      new ReplaySource(recorded(2), 1).generate({ ...request, taskId: "u", drawIndex: 0 }),
    ).rejects.toThrow(/no recorded rollouts for task u/);
  });
});
