import { afterAll, describe, expect, it } from "vitest";
import { patchSha256 } from "../store/patch-sha.ts";
import { tempDir } from "../store/testing/fixtures.ts";
import { renderDiff } from "./diff-view.ts";
import { percent, signed } from "./html.ts";
import { loadRun } from "./load-run.ts";
import { renderRunReport } from "./run-page.ts";
import { FIXTURE_PATCHES, writeRunFixture } from "./testing/run-fixture.ts";

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const run = loadRun({ storeFile: writeRunFixture(dir) });
const html = await renderRunReport(run);

describe("renderRunReport", () => {
  it("is one self-contained page that may load nothing from anywhere", () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`,
    );
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html.match(/<script>/g)).toHaveLength(1); // the page script; patches are a JSON data block
  });

  it("shows each step's stored metrics", () => {
    for (const step of run.steps) {
      const m = step.metrics!;
      expect(html).toContain(`data-step="${step.idx}" data-metric="passRate">${percent(m.passRate)}<`);
      expect(html).toContain(
        `data-step="${step.idx}" data-metric="groupsKept">${m.groupsKept}/${m.groupsGenerated}<`,
      );
    }
  });

  it("draws every chart, one advantage chart per kept group", () => {
    const figures = html.match(/<figure class="chart" id="chart-[^"]+">/g)!;
    const kept = run.steps.flatMap((s) => s.groups).filter((g) => g.kept);
    expect(figures).toHaveLength(10 + kept.length);
    for (const svg of html.match(/<svg[\s\S]*?<\/svg>/g)!) expect(svg).toMatch(/role-mark[^>]*><path /);
  });

  it("lists every group with its candidates' verdicts, tiers and advantages", () => {
    for (const group of run.steps.flatMap((s) => s.groups)) {
      expect(html).toContain(`data-group="${group.id}"`);
      for (const c of group.candidates) {
        expect(html).toContain(`<tr data-candidate="${c.id}">`);
        if (c.advantage) {
          const row = html.slice(html.indexOf(`<tr data-candidate="${c.id}">`));
          expect(row).toContain(`data-field="grpo">${signed(c.advantage.baseAdvantage)}<`);
        }
      }
    }
    expect(html).toContain("ranking by static 1.0.0: r1 &gt; r2 &gt; r3");
    expect(html).toContain('data-kept="0"');
    expect(html).toContain("dropped: all-fail");
  });

  it("puts each distinct patch in the page once, and never as markup", () => {
    const block = html.match(/<script type="application\/json" id="patches">(.*?)<\/script>/)![1]!;
    expect(block).not.toMatch(/<\/|<!/);
    const diffs = JSON.parse(block) as Record<string, string>;
    expect(Object.keys(diffs)).toHaveLength(Object.keys(FIXTURE_PATCHES).length);
    for (const patch of Object.values(FIXTURE_PATCHES))
      expect(diffs[patchSha256(patch)]).toBe(renderDiff(patch).html);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<b>literal</b>");
    expect(html).toContain('data-marks="[[&#34;calc.py&#34;,2]]"');
  });

  it("offers filters by task and by finding kind", () => {
    expect(html).toContain('<option value="calc">calc</option><option value="parse">parse</option>');
    expect(html).toContain('<option value="debug-leftover">debug-leftover</option>');
    expect(html).toContain('data-kinds="debug-leftover hard-coding"');
  });
});
