import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { percent, signed } from "../src/report/html.ts";
import { openStore } from "../src/store/run-store.ts";
import {
  chromiumMissing,
  type HeadlessChromium,
  launchChromium,
  type OpenedPage,
} from "./support/headless-chromium.ts";

/**
 * The reports in a real browser. A real demo run (replayed rollouts, bwrap sandbox, static grader,
 * two steps so the curves are lines) is drawn with `gagar report` and opened from disk in Debian's
 * headless chromium; so is `gagar experiment length` on the same store. With GAGAR_WRITE_SCREENSHOTS=1
 * the screenshots also go to docs/, where the README shows them.
 */
const root = resolve(import.meta.dirname, "..");
const missing = chromiumMissing();
const dir = mkdtempSync(join(tmpdir(), "gagar-report-e2e-"));
const out = join(dir, "demo");
const reportFile = join(dir, "report.html");
const experimentFile = join(dir, "experiment.html");
const writeDocs = process.env.GAGAR_WRITE_SCREENSHOTS === "1";

async function gagar(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(process.execPath, [join(root, "bin/gagar.js"), ...args], {
      encoding: "utf8",
      timeout: 300_000,
      maxBuffer: 1 << 26,
    });
  } catch (e) {
    const failed = e as { code?: number; stderr?: string };
    throw new Error(`gagar ${args.join(" ")} exited ${failed.code}:\n${failed.stderr}`);
  }
}

let browser: HeadlessChromium;
let demoStderr = "";
let experimentStdout = "";

if (missing) {
  it.skip(`report in headless chromium: unavailable here (${missing})`, () => {});
} else {
  beforeAll(async () => {
    demoStderr = (await gagar("demo", "--out", out, "--steps", "2")).stderr;
    const [, experiment, launched] = await Promise.all([
      gagar("report", out, "--out", reportFile),
      gagar("experiment", "length", "--store", join(out, "gagar.sqlite"), "--out", experimentFile),
      launchChromium(),
    ]);
    experimentStdout = experiment.stdout;
    browser = launched;
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("gagar report of a demo run, in headless chromium", () => {
    let opened: OpenedPage;
    beforeAll(async () => {
      opened = await browser.open(reportFile);
    });

    it("is the command the demo prints next", () => {
      expect(demoStderr).toContain(`npx gagar report ${out} --out ${join(out, "report.html")}`);
    });

    it("loads with no console error and no request but the file itself", () => {
      expect(opened.errors).toEqual([]);
      expect(opened.requests).toEqual([new URL(`file://${reportFile}`).href]);
    });

    it("has drawn marks in every chart", async () => {
      const charts = await opened.page.$$eval("figure.chart", (figures) =>
        figures.map((f) => ({
          id: f.id,
          drawn: [...f.querySelectorAll("svg g.role-mark > *")].filter((m) => {
            const box = (m as SVGGraphicsElement).getBBox();
            return box.width > 0 || box.height > 0;
          }).length,
        })),
      );
      expect(charts.length).toBeGreaterThanOrEqual(10);
      expect(charts.filter((c) => c.drawn === 0)).toEqual([]);
    });

    it("shows the numbers the store holds", async () => {
      const store = openStore(join(out, "gagar.sqlite"), { readonly: true });
      try {
        const run = store.latestRun()!;
        const page = opened.page;
        const metrics = store.stepMetrics(run.id);
        expect(metrics).toHaveLength(2);
        for (const { idx, metrics: m } of metrics) {
          const cell = (metric: string) =>
            page.locator(`td[data-step="${idx}"][data-metric="${metric}"]`).textContent();
          expect(await cell("passRate")).toBe(percent(m.passRate as number));
          expect(await cell("groupsKept")).toBe(`${m.groupsKept}/${m.groupsGenerated}`);
        }
        // Every candidate row of the page at once: {group, candidate, field → text}.
        const rows = await page.$$eval("article.group tr[data-candidate]", (trs) =>
          trs.map((tr) => ({
            key: `${tr.closest("article")!.getAttribute("data-group")}\0${tr.getAttribute("data-candidate")}`,
            verdict: tr.querySelector(".badge")?.textContent,
            ...Object.fromEntries(
              [...tr.querySelectorAll("td[data-field]")].map((td) => [
                td.getAttribute("data-field"),
                td.textContent,
              ]),
            ),
          })),
        );
        const shown = new Map(rows.map((r) => [r.key, r as Record<string, string | null | undefined>]));
        let checked = 0;
        let vetoed = 0;
        for (const idx of [0, 1]) {
          const step = store.getStep(run.id, idx)!;
          const groups = new Map(store.getStepGroups(step.id).map((g) => [g.id, g]));
          for (const a of store.stepAdvantages(step.id)) {
            const group = groups.get(a.groupId)!;
            const candidate = group.candidates.find((c) => c.id === a.candidateId)!;
            const verdict = store.findVerdict(group.taskId, candidate.patchSha256)!;
            expect(shown.get(`${a.groupId}\0${a.candidateId}`)).toMatchObject({
              grpo: signed(a.baseAdvantage),
              gagar: signed(a.advantage),
              weight: a.weight.toFixed(3),
              tier: a.tier === null ? "-" : String(a.tier),
              tokens: String(candidate.trajectory.tokens),
              // The default veto turns a pass with a critical finding into a failure, and says so.
              verdict: verdict.passed && a.reward === 0 ? "vetoed" : verdict.reason,
            });
            if (verdict.passed && a.reward === 0) vetoed++;
            checked++;
          }
        }
        expect(checked).toBe(2 * 4 * 8);
        expect(vetoed).toBeGreaterThan(0);
      } finally {
        store.close();
      }
    });

    it("keeps diffs collapsed until one is opened, then shows it with the finding's line marked", async () => {
      const page = opened.page;
      expect(await page.locator("details.diff[open]").count()).toBe(0);
      expect(await page.locator(".diff-body .diff-file").count()).toBe(0);
      const details = page.locator('details.diff:not([data-marks="[]"])').first();
      await details.locator("summary").click();
      await expect.poll(() => details.locator(".diff-file").count()).toBeGreaterThan(0);
      expect(await details.locator("tr.add, tr.del").count()).toBeGreaterThan(0);
      expect(await details.locator("tr.marked").count()).toBeGreaterThan(0);
      expect(await details.locator(".diff-file").first().isVisible()).toBe(true);
    });

    it("filters groups by task, by finding kind, and shows dropped groups on request", async () => {
      const page = opened.page;
      const visible = () =>
        page.$$eval("article.group", (groups) =>
          groups.filter((g) => !(g as HTMLElement).hidden).map((g) => (g as HTMLElement).dataset),
        );
      const keptOnly = await visible();
      expect(keptOnly.every((g) => g.kept === "1")).toBe(true);
      await page.check("#filter-dropped");
      expect((await visible()).length).toBeGreaterThanOrEqual(keptOnly.length);
      const task = keptOnly[0]!.task!;
      await page.selectOption("#filter-task", task);
      const ofTask = await visible();
      expect(ofTask.length).toBeGreaterThan(0);
      expect(ofTask.every((g) => g.task === task)).toBe(true);
      expect(await page.locator("#filter-count").textContent()).toMatch(
        new RegExp(`^${ofTask.length} of \\d+ groups shown$`),
      );
      await page.selectOption("#filter-task", "");
      await page.selectOption("#filter-kind", "test-tampering");
      const tampered = await visible();
      expect(tampered.length).toBeGreaterThan(0);
      expect(tampered.every((g) => g.kinds!.split(" ").includes("test-tampering"))).toBe(true);
      await page.selectOption("#filter-kind", "");
      await page.uncheck("#filter-dropped");
    });

    it("writes a screenshot", async () => {
      const shot = join(dir, "report.png");
      // From GRPO vs GAGAR down through the first groups: the part of the page a screenshot can show.
      const page = opened.page;
      const top = await page
        .locator("#grpo-vs-gagar")
        .evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
      await page.setViewportSize({ width: 1400, height: 1500 });
      await page.evaluate((y) => window.scrollTo(0, y - 12), top);
      await page.screenshot({ path: shot });
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      if (writeDocs) copyFileSync(shot, join(root, "docs/report.png"));
    });
  });

  describe("gagar experiment length, in headless chromium", () => {
    it("loads cleanly, draws its three curves, and shows the numbers it printed", async () => {
      const { page, errors, requests } = await browser.open(experimentFile);
      expect(errors).toEqual([]);
      expect(requests).toHaveLength(1);
      const drawn = await page.$$eval("figure.chart", (figures) =>
        figures.map((f) => f.querySelectorAll("svg g.role-mark > *").length),
      );
      expect(drawn).toHaveLength(3);
      expect(drawn.every((n) => n > 0)).toBe(true);
      // The terminal table's GAGAR column, e.g. "tokens  2061  2202 ± 50  2045 ± 37".
      for (const metric of ["tokens", "passRate", "topTierShare"]) {
        const line = experimentStdout.split("\n").find((l) => l.startsWith(`${metric} `))!;
        const gagar = line
          .trim()
          .split(/\s{2,}/)[3]!
          .split(" ± ")[0]!;
        const cell = await page.locator(`td[data-method="GAGAR"][data-metric="${metric}"]`).textContent();
        expect(cell!.startsWith(`${gagar} `)).toBe(true);
      }
      const shot = join(dir, "experiment.png");
      await page.locator("#result").screenshot({ path: shot });
      if (writeDocs) {
        await page.setViewportSize({ width: 1400, height: 900 });
        await page.locator("#curves").screenshot({ path: join(root, "docs/experiment-length.png") });
      }
      expect(existsSync(shot)).toBe(true);
    });
  });
}
