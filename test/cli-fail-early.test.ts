import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SANDBOX_JOBS_PER_CPU } from "../src/concurrency/sandbox-jobs.ts";

/**
 * Every command checks what it can before it works, as a user meets it: a real `gagar` process, its
 * exit code, its stderr, and the file system afterwards. A user's error is exit 2 with one line
 * naming the flag, file, line or field and no stack trace; nothing is left behind (no output, no
 * temp file, no folder, no store); a bug in gagar says so and how to report it, with its stack trace
 * only on request.
 */
const ROOT = resolve(import.meta.dirname, "..");
const TASKS = join(ROOT, "examples/tasks");
const ROLLOUTS = join(ROOT, "examples/rollouts/semver-prerelease-order.jsonl");
const GROUPS = join(ROOT, "examples/advantages/groups.jsonl");
const RANKINGS = join(ROOT, "examples/advantages/rankings.jsonl");

const scratch = mkdtempSync(join(tmpdir(), "gagar-fail-early-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Every case starts real gagar processes, each compiling its sources through tsx: seconds apiece on
// a loaded machine, hence the generous timeouts.

/** A fresh empty folder to run in; relative paths in a command are relative to it. */
function folder(): string {
  return mkdtempSync(join(scratch, "case-"));
}

function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(ROOT, "bin/gagar.js"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2, exactly one line on stderr matching `message`, no stack trace, nothing on stdout. */
function expectUserError(r: ReturnType<typeof run>, message: RegExp): void {
  const lines = r.stderr.split("\n").filter((l) => l.trim());
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gagar: /);
  expect(lines[0]).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
}

/** Every file and folder under `dir`, relative, hidden ones (temp files) included. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("output paths are checked before any work", { timeout: 300_000 }, () => {
  it("gagar verify --out into a missing folder: before a single sandbox runs", () => {
    const cwd = folder();
    const r = run(cwd, ["verify", "--tasks", TASKS, "--rollouts", ROLLOUTS, "--out", "no/such/dir/v.jsonl"]);
    expectUserError(r, /--out no\/such\/dir\/v\.jsonl: the folder no\/such\/dir does not exist/);
    expect(tree(cwd)).toEqual([]);
  });

  it("gagar verify --groups-out that is a folder, and the same file for both outputs", () => {
    const cwd = folder();
    mkdirSync(join(cwd, "groups"));
    const args = ["verify", "--tasks", TASKS, "--rollouts", ROLLOUTS, "--out", "v.jsonl"];
    expectUserError(run(cwd, [...args, "--groups-out", "groups"]), /--groups-out groups: is a folder/);
    expectUserError(
      run(cwd, [...args, "--groups-out", "./v.jsonl"]),
      /--groups-out \.\/v\.jsonl: the same file as --out/,
    );
    expect(tree(cwd)).toEqual(["groups"]);
  });

  it("gagar advantages --out into a missing folder, into a folder, and where nothing may be written", () => {
    const cwd = folder();
    mkdirSync(join(cwd, "adv"));
    const args = ["advantages", GROUPS, "--rankings", RANKINGS];
    expectUserError(
      run(cwd, [...args, "--out", "missing/adv.jsonl"]),
      /--out missing\/adv\.jsonl: the folder missing does not exist/,
    );
    expectUserError(run(cwd, [...args, "--out", "adv"]), /--out adv: is a folder; give the path of a file/);
    expectUserError(
      run(cwd, [...args, "--out", "/sys/gagar-adv.jsonl"]),
      /--out \/sys\/gagar-adv\.jsonl: cannot write in \/sys \(E[A-Z]+\)/,
    );
    expect(tree(cwd)).toEqual(["adv"]);
  });

  it("gagar grade --out, gagar report --out and gagar experiment length --out into missing folders", () => {
    const cwd = folder();
    expectUserError(
      run(cwd, ["grade", GROUPS, "--out", "x/r.jsonl"]),
      /--out x\/r\.jsonl: the folder x does not exist/,
    );
    expectUserError(
      run(cwd, ["report", "no-run-yet", "--out", "x/report.html"]),
      /--out x\/report\.html: the folder x does not exist/,
    );
    expectUserError(
      run(cwd, ["experiment", "length", "--out", "x/e.html"]),
      /--out x\/e\.html: the folder x does not exist/,
    );
    expect(tree(cwd)).toEqual([]);
  });

  it("gagar demo --out and gagar run's out where a file stands: nothing created, the file untouched", () => {
    const cwd = folder();
    writeFileSync(join(cwd, "taken"), "mine\n");
    expectUserError(
      run(cwd, ["demo", "--out", "taken/demo"]),
      /--out taken\/demo: cannot create it, .*taken is not a folder/,
    );
    writeFileSync(
      join(cwd, "gagar.config.json"),
      JSON.stringify({
        tasks: TASKS,
        rollouts: { source: "replay", replayDir: join(ROOT, "examples/rollouts") },
        out: "taken",
      }),
    );
    expectUserError(
      run(cwd, ["run", "--config", "gagar.config.json"]),
      /gagar\.config\.json \(field out\): .*taken: exists and is not a folder/,
    );
    expect(tree(cwd)).toEqual(["gagar.config.json", "taken"]);
    expect(readFileSync(join(cwd, "taken"), "utf8")).toBe("mine\n");
  });

  it("gagar run that cannot start (an unknown grader) leaves no folder and no store", () => {
    const cwd = folder();
    writeFileSync(
      join(cwd, "gagar.config.json"),
      JSON.stringify({
        tasks: TASKS,
        rollouts: { source: "replay", replayDir: join(ROOT, "examples/rollouts") },
        grader: "no-such-grader",
        out: "runs/first",
      }),
    );
    const r = run(cwd, ["run", "--config", "gagar.config.json"]);
    expect(r.stderr).toMatch(/no-such-grader/);
    expect(r.code).toBe(2);
    expect(tree(cwd)).toEqual(["gagar.config.json"]);
  });
});

describe("ports and numeric ranges", { timeout: 300_000 }, () => {
  it("gagar serve --port 99999: exit 2 naming --port, and no DIR/gagar.sqlite", () => {
    const cwd = folder();
    expectUserError(
      run(cwd, ["serve", "--port", "99999", "--out", "DIR"]),
      /--port <n>.*'99999'.*from 0 to 65535/,
    );
    expectUserError(run(cwd, ["serve", "--port", "-1", "--out", "DIR"]), /--port <n>.*'-1'/);
    expect(tree(cwd)).toEqual([]);
  });

  it("gagar serve on a port already taken: exit 2, and neither the folder nor the store it made stays", async () => {
    const cwd = folder();
    const taken: Server = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = run(cwd, ["serve", "--port", String(port), "--out", "DIR"]);
      const lines = r.stderr.split("\n").filter((l) => l.trim() && !l.startsWith("gagar serve: "));
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^gagar: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`)),
      ]);
      expect(r.code).toBe(2);
      expect(tree(cwd)).toEqual([]);
      // A folder that was there stays, only the store gagar made goes.
      mkdirSync(join(cwd, "existing"));
      expect(run(cwd, ["serve", "--port", String(port), "--out", "existing"]).code).toBe(2);
      expect(tree(cwd)).toEqual(["existing"]);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it("gagar serve with a grader config it cannot read: exit 2, no folder", () => {
    const cwd = folder();
    expectUserError(
      run(cwd, ["serve", "--grader-config", "missing.json", "--out", "DIR"]),
      /--grader-config missing\.json: /,
    );
    expect(tree(cwd)).toEqual([]);
  });

  it("gagar serve on a host name that does not resolve: exit 2, no folder", () => {
    const cwd = folder();
    const r = run(cwd, ["serve", "--host", "nosuchhost.invalid", "--port", "0", "--out", "DIR"], {
      GAGAR_TOKEN: "t",
    });
    const lines = r.stderr.split("\n").filter((l) => l.trim() && !l.startsWith("gagar serve: "));
    expect(lines).toEqual([
      expect.stringMatching(/^gagar: cannot listen on nosuchhost\.invalid:0: .*ENOTFOUND/),
    ]);
    expect(r.code).toBe(2);
    expect(tree(cwd)).toEqual([]);
  });

  it(`--jobs past ${SANDBOX_JOBS_PER_CPU} per CPU is refused, on the command line and in a config`, () => {
    const cwd = folder();
    const most = SANDBOX_JOBS_PER_CPU * availableParallelism();
    expectUserError(
      run(cwd, ["verify", "--tasks", TASKS, "--rollouts", ROLLOUTS, "--out", "v.jsonl", "--jobs", "100000"]),
      new RegExp(
        `--jobs <n>.*from 1 to ${most} \\(${SANDBOX_JOBS_PER_CPU} per CPU; this host has ${availableParallelism()} CPUs?\\).*"100000"`,
      ),
    );
    expectUserError(run(cwd, ["serve", "--jobs", "100000"]), /--jobs <n>.*"100000"/);
    expectUserError(
      run(cwd, ["worker", "--queue", "redis://127.0.0.1:1", "--tasks", TASKS, "--jobs", "100000"]),
      /--jobs <n>.*"100000"/,
    );
    writeFileSync(join(cwd, "c.json"), JSON.stringify({ tasks: TASKS, verifyJobs: 100000, out: "o" }));
    expectUserError(
      run(cwd, ["run", "--config", "c.json"]),
      new RegExp(`c\\.json \\(field verifyJobs\\).*at most ${SANDBOX_JOBS_PER_CPU} per CPU`),
    );
    expect(tree(cwd)).toEqual(["c.json"]);
  });

  it("counts a typo would turn into hours of work or a full memory have an upper bound, flag and config alike", () => {
    const cwd = folder();
    expectUserError(
      run(cwd, ["grade", GROUPS, "--concurrency", "40000"]),
      /--concurrency <c>.*from 1 to \d+ \(requests at once to one model server\).*"40000"/,
    );
    expectUserError(run(cwd, ["grade", GROUPS, "--passes", "100000"]), /--passes <k>.*"100000"/);
    expectUserError(run(cwd, ["serve", "--max-queued", "1e12"]), /--max-queued <n>.*"1e12"/);
    expectUserError(run(cwd, ["serve", "--max-inflight", "9999999"]), /--max-inflight <n>.*"9999999"/);
    expectUserError(run(cwd, ["demo", "--steps", "1e9"]), /--steps <k>.*"1e9"/);
    expectUserError(run(cwd, ["experiment", "length", "--seeds", "1e9"]), /--seeds <k>.*"1e9"/);
    writeFileSync(
      join(cwd, "c.json"),
      JSON.stringify({
        tasks: TASKS,
        out: "o",
        rollouts: { source: "policy", baseUrl: "http://127.0.0.1:9/v1", model: "m", concurrency: 1e6 },
      }),
    );
    expectUserError(
      run(cwd, ["run", "--config", "c.json"]),
      /c\.json \(field rollouts\.concurrency\).*at most \d+ requests at once to one model server/,
    );
    expect(tree(cwd)).toEqual(["c.json"]);
  });
});

describe("the whole input is read before any result is shown", { timeout: 300_000 }, () => {
  it("gagar advantages on a file whose second line is truncated prints no table of the first group", () => {
    const cwd = folder();
    const [first, second] = readFileSync(GROUPS, "utf8").split("\n");
    writeFileSync(join(cwd, "groups.jsonl"), `${first}\n${second!.slice(0, second!.length / 2)}\n`);
    const r = run(cwd, ["advantages", "groups.jsonl", "--rankings", RANKINGS]);
    expectUserError(r, /^gagar: groups\.jsonl:2: not valid JSON/);
    const out = run(cwd, ["advantages", "groups.jsonl", "--rankings", RANKINGS, "--out", "adv.jsonl"]);
    expect(out.code).toBe(2);
    expect(tree(cwd)).toEqual(["groups.jsonl"]);
  });

  it("gagar grade with a group whose repository folder is missing names the line and field before grading", () => {
    const cwd = folder();
    const lines = readFileSync(GROUPS, "utf8").split("\n").filter(Boolean);
    const second = JSON.parse(lines[1] as string);
    second.task.workspace = "no/such/repo";
    writeFileSync(
      join(cwd, "groups.jsonl"),
      [lines[0], JSON.stringify(second), ...lines.slice(2)].join("\n"),
    );
    expectUserError(
      run(cwd, ["grade", "groups.jsonl", "--out", "r.jsonl"]),
      /^gagar: groups\.jsonl:2 \(field task\.workspace\): no folder at .*no\/such\/repo/,
    );
    expect(tree(cwd)).toEqual(["groups.jsonl"]);
  });

  it("a folder given where an input file is expected is the user's error, not gagar's", () => {
    const cwd = folder();
    expectUserError(run(cwd, ["advantages", tmpdir()]), /: is a folder, not a file$/);
    expectUserError(run(cwd, ["grade", tmpdir()]), /: is a folder, not a file$/);
    expectUserError(run(cwd, ["report", "--store", tmpdir()]), /: is a folder; a run store is a file/);
  });
});

describe("a bug in gagar", { timeout: 300_000 }, () => {
  const withBug = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", join(ROOT, "test/fixtures/cli/gagar-with-a-bug.ts"), ...args],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, GAGAR_DEBUG: "", ...env },
      },
    );
    return { code: r.status, stderr: r.stderr };
  };

  it("says it is a bug and how to report it, without a stack trace", () => {
    const r = withBug(["bug"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^gagar: internal error \(a bug in gagar, not in your input\): TypeError: Cannot read properties of undefined/,
    );
    expect(r.stderr).toMatch(/--debug \(or GAGAR_DEBUG=1\)/);
    expect(r.stderr).toMatch(/report it .*CONTRIBUTING\.md, Reporting a bug/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("keeps its stack trace behind --debug or GAGAR_DEBUG=1", () => {
    for (const r of [
      withBug(["bug", "--debug"]),
      withBug(["--debug", "bug"]),
      withBug(["bug"], { GAGAR_DEBUG: "1" }),
    ]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^\s+at .*gagar-with-a-bug\.ts:\d+/m);
    }
    expect(readFileSync(join(ROOT, "CONTRIBUTING.md"), "utf8")).toMatch(/^## Reporting a bug$/m);
  });
});
