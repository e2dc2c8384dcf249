import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATIC_GRADER_VERSION } from "../src/grade/static/grader.ts";

/**
 * The README quotes what `gagar demo` and `gagar experiment length` print. Both run here as a user
 * runs them, and the quotes must be what they print (run ids aside), so neither the demo's table
 * (its vetoed candidate included) nor the experiment's figures and grader version can drift from
 * the code. The demo's progress lines and the report it leads to must number rounds alike.
 */
const root = resolve(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "gagar-readme-"));
const out = join(dir, "demo");

async function gagar(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(process.execPath, [join(root, "bin/gagar.js"), ...args], {
      encoding: "utf8",
      timeout: 400_000,
      maxBuffer: 1 << 26,
    });
  } catch (e) {
    const failed = e as { code?: number; stderr?: string };
    throw new Error(`gagar ${args.join(" ")} exited ${failed.code}:\n${failed.stderr}`);
  }
}

/** The fenced block of the README that starts with a line matching `first`, without its fences. */
function readmeBlock(first: RegExp): string[] {
  const blocks = readme.split(/^```\w*\n/m).filter((_, i) => i % 2 === 1);
  const block = blocks.find((b) => b.split("\n").some((l) => first.test(l)));
  if (!block) throw new Error(`the README has no block with a line matching ${first}`);
  return block.replace(/\n$/, "").split("\n");
}

let demo: { stdout: string; stderr: string };
let experiment: { stdout: string; stderr: string };

beforeAll(async () => {
  demo = await gagar("demo", "--out", out);
  experiment = await gagar(
    "experiment",
    "length",
    "--store",
    join(out, "gagar.sqlite"),
    "--out",
    join(dir, "x.html"),
  );
}, 800_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each gagar process compiles its sources through tsx at start: slow on a loaded machine.
describe("the README's quoted outputs", { timeout: 300_000 }, () => {
  it("quote the demo's table as it prints, with the vetoed test-tampering candidate", () => {
    const quoted = readmeBlock(/^■ run-…\/s0\/r0\/moneyfmt-minor-units/);
    const printed = demo.stdout
      .replace(/run-\d{8}T\d{6}Z-[0-9a-f]+/g, "run-…")
      .split("\n\n")
      .find((block) => block.startsWith("■ run-…/s0/r0/moneyfmt-minor-units"));
    expect(printed?.split("\n")).toEqual(quoted);
    expect(quoted.find((l) => /-r06 /.test(l))).toMatch(/^ {2}moneyfmt-minor-units-r06 +vetoed +- +-\d/);
  });

  it("quote the experiment's table as it prints, and the grader version that made its tiers", () => {
    const quoted = readmeBlock(/^simulation, after \d+ steps/).filter((l) => !l.startsWith("$ "));
    expect(experiment.stdout.split("\n").slice(0, quoted.length)).toEqual(quoted);
    expect(quoted[0]).toContain(`tiers by static ${STATIC_GRADER_VERSION})`);
  });
});

describe("gagar demo's account of dynamic sampling", { timeout: 300_000 }, () => {
  it("says what each round generated, found informative and kept, numbered as the report numbers it", async () => {
    // All six groups of the example pack's first round are informative; the batch wants four.
    expect(demo.stderr).toMatch(
      /^round 0: 6 groups generated, 6 informative; kept 4 \(batch 4\/4\), 2 surplus dropped$/m,
    );
    expect(demo.stderr).not.toMatch(/^round 1:/m);
    const report = join(dir, "report.html");
    await gagar("report", out, "--out", report);
    const html = readFileSync(report, "utf8");
    expect(html.match(/· round \d+ ·/g)?.sort()).toEqual(Array(6).fill("· round 0 ·"));
  });
});
