import { describe, expect, it } from "vitest";
import { REDACTED, secretLines } from "../run/output-tail.ts";
import { mochaRunner } from "../runners/mocha.ts";
import { FAILURE_MESSAGES_BYTES, failureMessages } from "./failure-messages.ts";
import type { JunitCase } from "./junit-report.ts";

const FILE = "test/fetch.test.js";
const HIDDEN = [
  'describe("fetch", () => {',
  '  before(async () => { fixture = await download("https://example.org/f.json"); });',
  '  it("parses", () => assert.deepStrictEqual(parse(fixture), { ok: true }));',
  "});",
].join("\n");
const secrets = secretLines([HIDDEN]);
const plan = mochaRunner.plan({ command: mochaRunner.defaultCommand, testFiles: [FILE] });

function mochaCase(titles: string[], status: JunitCase["status"], message = "", file = FILE): JunitCase {
  return { name: titles.join(" > "), classname: "", file, suites: [], status, message, timeSec: 0 };
}

function messages(cases: JunitCase[], ids: string[], cap?: number): string {
  return failureMessages({ plan, cases: [cases], ids, secrets, ...(cap && { cap }) });
}

describe("failureMessages", () => {
  it("shows a failing hook that left the task's ids missing, with the project's stack frames, without quoting the hidden test", () => {
    const hook = mochaCase(
      ["fetch", '"before all" hook for "parses"'],
      "error",
      [
        "getaddrinfo EAI_AGAIN example.org",
        "Error: getaddrinfo EAI_AGAIN example.org",
        "    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26)",
        "    at download (/workspace/lib/download.js:3:9)",
        "    at /workspace/node_modules/got/index.js:10:2",
        "    at callFn (/usr/share/nodejs/mocha/lib/runnable.js:366:21)",
        "    at Context.<anonymous> (test/fetch.test.js:2:40)",
        '  before(async () => { fixture = await download("https://example.org/f.json"); });',
      ].join("\n"),
    );
    const text = messages([hook], [`${FILE}::fetch > parses`]);
    expect(text.split("\n")).toEqual([
      `${FILE}::fetch > "before all" hook for "parses" (error)`,
      "  getaddrinfo EAI_AGAIN example.org",
      "  Error: getaddrinfo EAI_AGAIN example.org",
      "      at download (/workspace/lib/download.js:3:9)",
      "      at Context.<anonymous> (test/fetch.test.js:2:40)",
      `  ${REDACTED}`,
    ]);
  });

  it("puts the task's failing ids first, in the task's order, and leaves canaries and passing tests out", () => {
    const canary = plan.runs[0]!.canaries.find((c) => c.expect === "fail")!;
    const [canaryFile, canaryName] = canary.key.split("::") as [string, string];
    const cases = [
      mochaCase(["other", "breaks"], "failed", "other broke"),
      mochaCase(["fetch", "second"], "failed", "\u001b[31msecond broke\u001b[39m"),
      mochaCase([canaryName], "failed", canary.message, canaryFile),
      mochaCase(["fetch", "first"], "failed", "first broke"),
      mochaCase(["fetch", "fine"], "passed"),
    ];
    const text = messages(cases, [`${FILE}::fetch > first`, `${FILE}::fetch > second`]);
    expect(text).toBe(
      [
        `${FILE}::fetch > first (failed)`,
        "  first broke",
        `${FILE}::fetch > second (failed)`,
        "  second broke",
        `${FILE}::other > breaks (failed)`,
        "  other broke",
      ].join("\n"),
    );
    expect(text).not.toContain(canary.message!);
  });

  it("caps each message's lines and the whole text, and says how many failures were left out", () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n");
    const cases = Array.from({ length: 30 }, (_, i) => mochaCase(["many", `t${i}`], "failed", long));
    const text = messages(cases, []);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(FAILURE_MESSAGES_BYTES);
    expect(text).toContain("  [28 more lines]");
    expect(text).toMatch(/\n\[\d+ more failing tests left out\]$/);
    const tiny = messages(cases, [], 200);
    expect(Buffer.byteLength(tiny)).toBeLessThanOrEqual(200);
    expect(tiny.startsWith(`${FILE}::many > t0 (failed)\n  line 0`)).toBe(true);
    expect(tiny.endsWith("[29 more failing tests left out]")).toBe(true);
  });

  it("is empty when nothing failed", () => {
    expect(messages([mochaCase(["fetch", "parses"], "passed")], [`${FILE}::fetch > parses`])).toBe("");
  });
});
