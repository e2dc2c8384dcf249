import { describe, expect, it } from "vitest";
import { collectDoctorReport, type DoctorReport, formatDoctorReport } from "./doctor.ts";

const fixture = (auto: string | null): DoctorReport => ({
  backends: [
    {
      name: "bwrap",
      isolated: true,
      availability: {
        available: auto === "bwrap",
        missing: auto === "bwrap" ? [] : ["bwrap not found: apt-get install bubblewrap"],
        weaknesses: ["shares the host kernel"],
      },
    },
    {
      name: "unshare",
      isolated: true,
      availability: {
        available: auto !== null,
        missing: auto !== null ? [] : ["not running as root: run gagar as root"],
        weaknesses: ["mounts set up by host root"],
      },
    },
    {
      name: "unsandboxed",
      isolated: false,
      availability: { available: true, missing: [], weaknesses: ["no isolation at all"] },
    },
  ],
  auto,
  tools: [
    { name: "bwrap", version: "bubblewrap 0.8.0" },
    { name: "node", version: "v20.20.2 (/usr/bin/node)" },
  ],
  environments: [
    { kind: "host", ok: true, missing: [] },
    { kind: "oci", ok: false, missing: ["umoci not found: apt-get install umoci"] },
  ],
  suite: [
    {
      name: "redis-server",
      version: "Redis server v=7.0.15",
      usedBy: "the queue tests",
      install: "apt-get install redis-server",
    },
    {
      name: "chromium",
      version: undefined,
      usedBy: "the browser tests",
      install: "apt-get install chromium",
    },
  ],
});

describe("formatDoctorReport", () => {
  it("lists every backend with its state, and the weaknesses of the one auto picks", () => {
    const text = formatDoctorReport(fixture("bwrap"));
    expect(text).toBe(
      [
        "gagar doctor: sandbox backends on this host (strongest first)",
        "",
        "  bwrap        [ok]       available (auto picks this)",
        "  unshare      [ok]       available",
        "  unsandboxed  [opt-in]   usable only with --allow-unsandboxed: NO isolation",
        "",
        "--sandbox auto: bwrap, which on this host does not protect against:",
        "  - shares the host kernel",
        "",
        "tools",
        "  bwrap        bubblewrap 0.8.0",
        "  node         v20.20.2 (/usr/bin/node)",
        "",
        "task environments (task.json environment.kind)",
        "  host         [ok]       supported",
        "  oci          [missing]  not supported here",
        "                 - umoci not found: apt-get install umoci",
        "",
        "for the test suite and optional features",
        "  redis-server Redis server v=7.0.15",
        "                 used by the queue tests",
        "  chromium     [missing]  not installed (apt-get install chromium)",
        "                 used by the browser tests",
        "",
        "OK: candidate code runs in the bwrap sandbox.",
        "",
      ].join("\n"),
    );
  });

  it("shows what is missing with its fix, and says when auto falls back to a weaker backend", () => {
    const text = formatDoctorReport(fixture("unshare"));
    expect(text).toContain(
      "  bwrap        [missing]  not available\n                 - bwrap not found: apt-get install bubblewrap\n",
    );
    expect(text).toContain(
      "--sandbox auto: unshare, which on this host does not protect against:\n  - mounts set up by host root\n",
    );
    expect(text).toContain("everything bwrap adds over it: install bubblewrap");
  });

  it("says NOT OK when no real sandbox works, whatever unsandboxed could do", () => {
    const text = formatDoctorReport(fixture(null));
    expect(text).toContain("--sandbox auto: NONE.");
    expect(text).toContain("  - not running as root: run gagar as root\n");
    expect(text.trimEnd().split("\n").at(-1)).toBe("NOT OK: no real sandbox is available on this host.");
  });
});

describe("collectDoctorReport", () => {
  it.skipIf(process.env.GAGAR_ALLOW_NO_BWRAP === "1")(
    "finds bwrap and pytest on this host",
    { timeout: 60_000 },
    async () => {
      const report = await collectDoctorReport();
      expect(report.backends.map((b) => b.name)).toEqual(["bwrap", "unshare", "unsandboxed"]);
      expect(report.auto).toBe("bwrap");
      const tools = Object.fromEntries(report.tools.map((t) => [t.name, t.version]));
      expect(tools.bwrap).toMatch(/^bubblewrap \d+\.\d+/);
      expect(tools.pytest).toMatch(/^pytest \d+.*inside the bwrap sandbox/);
      // Linux 5.12+ as root: the workspace reaches its sandbox uid without a chown -R.
      expect(tools.workspaces).toMatch(/^overlay on an idmapped snapshot/);
      expect(tools.node).toContain(process.version);
      expect(report.environments.map((e) => e.kind)).toEqual(["host", "setup", "rootfs", "oci"]);
      expect(report.environments.find((e) => e.kind === "host")).toMatchObject({ ok: true });
      // The test suite's own needs, installed on this machine as on CI.
      const suite = Object.fromEntries(report.suite.map((t) => [t.name, t.version]));
      expect(suite["redis-server"]).toMatch(/^Redis server v=\d+/);
      expect(suite.chromium).toMatch(/^Chromium \d+/);
      expect(suite.mocha).toMatch(/^mocha \d+\.\d+/);
    },
  );
});
