import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { FIXTURE_RUN, writeRunFixture } from "../../report/testing/run-fixture.ts";
import { main } from "../main.ts";

const dir = mkdtempSync(join(tmpdir(), "gagar-report-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());
const store = writeRunFixture(dir);
mkdirSync(join(dir, "runs"));

async function gagar(...args: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const code = await main(["node", "gagar", ...args]);
  vi.restoreAllMocks();
  return { code, stderr: lines.join("") };
}

describe("gagar report", () => {
  it("writes the report beside the run's files by default", async () => {
    const r = await gagar("report", dir);
    expect(r.code).toBe(0);
    const file = join(dir, "runs", FIXTURE_RUN, "report.html");
    expect(r.stderr).toContain(`report of run ${FIXTURE_RUN}: 2 step(s), 3 group(s) → ${file}`);
    expect(existsSync(file)).toBe(true);
    rmSync(join(dir, "runs", FIXTURE_RUN), { recursive: true });
  });

  it("reads a named run of a store given with --store", async () => {
    const out = join(dir, "named.html");
    expect((await gagar("report", "--store", store, "--run", FIXTURE_RUN, "--out", out)).code).toBe(0);
    expect(existsSync(out)).toBe(true);
    rmSync(out);
  });

  const cases: [string, string[], RegExp][] = [
    ["no run folder and no store", [], /give either a run folder or --store/],
    ["both a folder and a store", [dir, "--store", store], /give either a run folder or --store/],
    ["a folder that does not exist", [join(dir, "missing")], /missing: does not exist/],
    ["a folder without a store", [join(dir, "runs")], /has no gagar.sqlite/],
    ["an unknown run", ["--store", store, "--run", "run-x"], /gagar.sqlite: has no run "run-x"/],
    [
      "a run other than the folder's",
      [join(dir, "runs", FIXTURE_RUN), "--run", "run-x"],
      /differs from the run the folder names/,
    ],
    [
      "an --out in a missing folder",
      [dir, "--out", join(dir, "nope", "r.html")],
      /--out .*the folder .*nope does not exist/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(`rejects ${what} with exit 2 and writes nothing`, async () => {
      mkdirSync(join(dir, "runs", FIXTURE_RUN), { recursive: true });
      const before = readdirSync(dir, { recursive: true }).sort();
      const r = await gagar("report", ...args);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
      expect(readdirSync(dir, { recursive: true }).sort()).toEqual(before);
    });
  }
});

describe("gagar experiment length", () => {
  const cases: [string, string[], RegExp][] = [
    ["zero steps", ["--steps", "0"], /--steps.*expected a whole number from 1 to \d+ \(steps\), got "0"/],
    ["a λ of 1", ["--lambda", "1"], /--lambda.*expected a number in \[0, 1\)/],
    [
      "an --out in a missing folder",
      ["--out", join(dir, "nope", "e.html")],
      /the folder .*nope does not exist/,
    ],
    ["a pack without recorded rollouts", ["--rollouts", dir], /no task of .* has recorded rollouts/],
  ];
  for (const [what, args, message] of cases) {
    it(`rejects ${what} with exit 2`, async () => {
      const out = args.includes("--out") ? [] : ["--out", join(dir, "e.html")];
      const r = await gagar("experiment", "length", ...args, ...out);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
      expect(existsSync(join(dir, "e.html"))).toBe(false);
    });
  }
});
