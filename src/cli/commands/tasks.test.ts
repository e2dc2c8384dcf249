import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { writeTask } from "../../../test/support/task-fixture.ts";
import { runnerNamed } from "../../verify/runners/registry.ts";
import { registerTasks } from "./tasks.ts";

const TASKS = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gagar-cli-tasks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the last `gagar` call printed, also when it failed. */
let printed = "";

async function gagar(...args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerTasks(program);
  let stderr = "";
  printed = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    printed = stderr;
    return true;
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } finally {
    spy.mockRestore();
  }
  return stderr;
}

describe("gagar tasks check", () => {
  it("lists valid packs and, with --run, checks reference and empty patches for real", async () => {
    const copy = join(dir, "all");
    cpSync(TASKS, copy, { recursive: true });
    const stderr = await gagar(
      "tasks",
      "check",
      copy,
      "--run",
      "--save",
      "--sandbox",
      "bwrap",
      "--jobs",
      "2",
    );
    expect(stderr).toContain("2 task packs are well-formed");
    expect(stderr).toContain("all 2 tasks are valid");
    expect(JSON.parse(readFileSync(join(copy, "calc-div-zero", "check.json"), "utf8"))).toMatchObject({
      valid: true,
      problems: [],
    });
  });

  it("fails when a reference patch does not pass", async () => {
    const pack = join(dir, "calc-div-zero");
    cpSync(join(TASKS, "calc-div-zero"), pack, { recursive: true });
    const broken = readFileSync(join(pack, "reference.patch"), "utf8").replace(
      'raise ValueError("division by zero")',
      'raise ValueError("nope")',
    );
    writeFileSync(join(pack, "reference.patch"), broken);
    let stderr = "";
    await expect(
      gagar("tasks", "check", pack, "--run", "--save", "--sandbox", "bwrap").catch((e) => {
        stderr = String((e as Error).message);
        throw e;
      }),
    ).rejects.toThrow(/1 of 1 tasks are invalid \(calc-div-zero\)/);
    const stored = JSON.parse(readFileSync(join(pack, "check.json"), "utf8"));
    expect(stored.valid).toBe(false);
    expect(stored.problems[0]).toMatch(/^the reference patch does not pass: tests-failed/);
    expect(stderr).toBeTruthy();
  });
});

describe("gagar tasks check --run on a mocha task whose before hook downloads a fixture", () => {
  const mocha = "/usr/share/nodejs/mocha/bin/mocha.js";
  const parse = (body: string) => `"use strict";\nexports.parse = (text) => ${body};\n`;
  const spec = [
    'const assert = require("node:assert");',
    'const https = require("node:https");',
    'const { parse } = require("../lib/parse.js");',
    "",
    'describe("parse", () => {',
    "  let fixture;",
    "  before((done) => {",
    '    https.get("https://registry.npmjs.org/left-pad", (res) => {',
    '      fixture = "";',
    '      res.on("data", (chunk) => { fixture += chunk; });',
    '      res.on("end", done);',
    '    }).on("error", (e) => done(new Error("fixture download failed: " + e.code)));',
    "  });",
    '  it("reads the fixture", () => {',
    '    assert.strictEqual(parse(fixture).name, "left-pad");',
    "  });",
    "});",
    "",
  ].join("\n");

  it.skipIf(!existsSync(mocha))("says why with the hook's error, and keeps it in check.json", async () => {
    const pack = writeTask(join(dir, "mocha"), {
      id: "fetch-fixture",
      spec: {
        statement: "parse() must read JSON.",
        language: "javascript",
        test: {
          runner: "mocha",
          command: ["node", mocha, "--reporter={reporter}", "{tests}"],
          env: { NODE_PATH: "/usr/share/nodejs" },
        },
        failToPass: ["test/fetch.spec.js::parse > reads the fixture"],
        passToPass: [],
        timeoutSec: 60,
      },
      repo: { "lib/parse.js": parse("text") },
      tests: { "test/fetch.spec.js": spec },
      reference: { "lib/parse.js": parse("JSON.parse(text)") },
    });
    let stderr = "";
    await expect(
      gagar("tasks", "check", pack, "--run", "--save", "--sandbox", "bwrap").catch((e) => {
        stderr = String((e as Error).message);
        throw e;
      }),
    ).rejects.toThrow(/1 of 1 tasks are invalid \(fetch-fixture\)/);
    const hook = 'test/fetch.spec.js::parse > "before all" hook for "reads the fixture" (error)';
    const stored = JSON.parse(readFileSync(join(pack, "check.json"), "utf8"));
    expect(stored.problems).toContain(
      "test id test/fetch.spec.js::parse > reads the fixture never appears in a report (with or without the fix)",
    );
    expect(stored.referenceFailures).toMatch(
      new RegExp(`^${escapeRegExp(hook)}\\n {2}fixture download failed: E`),
    );
    expect(stored.referenceOutput).toContain("gagar-runner: run mocha");
    expect(printed).toContain(
      `the reference run's failing tests:\n      ${hook}\n        fixture download failed`,
    );
    expect(`${printed}${JSON.stringify(stored)}`).not.toContain('new Error("fixture download failed');
    expect(stderr).toBeTruthy();
  });
});

describe('README\'s "Bringing your own task set"', () => {
  it("shows --runner and --test-command of gagar tasks import, with real flags and the runner's placeholders", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## Bringing your own task set"));
    const text = section.slice(0, section.indexOf("\n## ", 1));
    const program = new Command();
    registerTasks(program);
    const command = program.commands
      .find((c) => c.name() === "tasks")!
      .commands.find((c) => c.name() === "import")!;
    const flags = new Set(command.options.map((o) => o.long));
    const calls = text.replaceAll("\\\n", " ").match(/gagar tasks import [^\n]*/g) ?? [];
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls)
      for (const flag of call.replace(/"[^"]*"/g, "").match(/--[a-z-]+/g) ?? [])
        expect(flags).toContain(flag);
    expect(text).toContain("`--runner`");
    expect(text).toContain("`--test-command`");
    const shown = calls.map((c) => /--runner (\S+) --test-command "([^"]+)"/.exec(c)).find(Boolean);
    expect(shown, "an import with --runner and --test-command").toBeTruthy();
    for (const placeholder of runnerNamed(shown![1]!).requires) expect(shown![2]).toContain(placeholder);
  });
});

describe("gagar tasks import", () => {
  it("rejects a test command with an unterminated quote", async () => {
    await expect(
      gagar("tasks", "import", "x.jsonl", "--repos", dir, "--out", dir, "--test-command", "pytest 'oops"),
    ).rejects.toThrow(/unterminated/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
