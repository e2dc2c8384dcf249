/**
 * `gagar report` of a 40-group run: the size of the page and the time headless chromium takes to
 * open it from disk (goal: a few MB at most, under a second to its load event), beside the time to
 * open an empty page in the same browser, measured in the same session.
 *
 * The run is real: 5 steps of 8 kept groups of 8 replayed rollouts from the example pack, verified
 * in the sandbox and ranked by the static grader (later steps reuse the verdicts of patches seen
 * before, so it takes about as long as the demo).
 *
 *   npx tsx bench/report.bench.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromiumMissing, launchChromium } from "../test/support/headless-chromium.ts";
import { median, report } from "./stats.ts";

const root = resolve(import.meta.dirname, "..");
const STEPS = 5;
const GROUPS_PER_STEP = 8;
const OPENS = 7;

export async function run(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) {
    report("report of a 40-group run", `skipped: ${missing}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "gagar-bench-report-"));
  try {
    const config = join(dir, "gagar.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        tasks: join(root, "examples/tasks"),
        rollouts: { source: "replay", replayDir: join(root, "examples/rollouts") },
        batchGroups: GROUPS_PER_STEP,
        out: join(dir, "out"),
      }),
    );
    const gagar = (...args: string[]) =>
      execFileSync(process.execPath, [join(root, "bin/gagar.js"), ...args], { stdio: "pipe" });
    gagar("run", "--config", config, "--steps", String(STEPS), "--quiet");
    const page = join(dir, "report.html");
    const t0 = performance.now();
    gagar("report", join(dir, "out"), "--out", page);
    const writeMs = performance.now() - t0;
    const blank = join(dir, "blank.html");
    writeFileSync(blank, "<!doctype html><title>blank</title><p>blank</p>");

    const browser = await launchChromium();
    try {
      const openMs = async (file: string) => {
        const opened = await browser.open(file);
        const ms = await opened.page.evaluate(
          () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd,
        );
        if (opened.errors.length) throw new Error(`${file}: ${opened.errors.join("; ")}`);
        await opened.page.close();
        return ms;
      };
      await openMs(blank); // warm-up: first page of a fresh profile
      const reportTimes: number[] = [];
      const blankTimes: number[] = [];
      for (let i = 0; i < OPENS; i++) {
        reportTimes.push(await openMs(page));
        blankTimes.push(await openMs(blank));
      }
      const size = statSync(page).size;
      const groups = STEPS * GROUPS_PER_STEP;
      report(
        `report of a ${groups}-group run, size`,
        `${(size / 1e6).toFixed(2)} MB (goal: a few MB) · written by gagar report in ${(writeMs / 1000).toFixed(1)} s`,
      );
      report(
        `report of a ${groups}-group run, open in chromium`,
        `${median(reportTimes).toFixed(0)} ms to the load event (goal < 1000 ms; median of ${OPENS}) · ` +
          `an empty page ${median(blankTimes).toFixed(0)} ms · ratio ${(median(reportTimes) / median(blankTimes)).toFixed(1)}×`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
