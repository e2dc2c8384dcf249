import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { SandboxError } from "../../errors.ts";
import { createBwrapBackend } from "../../sandbox/bwrap.ts";
import { findTool, versionOf } from "../../sandbox/host-tools.ts";
import type { Availability, SandboxBackend } from "../../sandbox/types.ts";
import { createUnsandboxedBackend } from "../../sandbox/unsandboxed.ts";
import { createUnshareBackend } from "../../sandbox/unshare.ts";
import { ENVIRONMENTS } from "../../verify/environments/registry.ts";
import { IdmappedLowers } from "../../verify/workspace/idmapped-lowers.ts";
import { type SuiteTool, suiteTools } from "../suite-tools.ts";

/** The Python that sandboxed test runs use: Debian's, world-readable (pyenv's under /root is not). */
export const SANDBOX_PYTHON = "/usr/bin/python3";

export interface DoctorReport {
  /** Every backend, in order of strength, with what it lacks and what it cannot protect against. */
  backends: { name: string; isolated: boolean; availability: Availability }[];
  /** The backend `--sandbox auto` picks, or null when no real sandbox works here. */
  auto: string | null;
  /** Tool versions, with where they were measured or how to get them. */
  tools: { name: string; version: string }[];
  /** Task environment kinds (task.json `environment`) this host can build and run, and what the others lack. */
  environments: { kind: string; ok: boolean; missing: string[] }[];
  /** What the test suite and the optional features need besides the verifier (suite-tools.ts). */
  suite: SuiteTool[];
}

/**
 * Checks every backend for real (each runs /bin/true in its sandbox) and the tools the verifier needs.
 * pytest is looked up the way tests will run it: by /usr/bin/python3 inside the sandbox auto picks.
 */
export async function collectDoctorReport(): Promise<DoctorReport> {
  const candidates: SandboxBackend[] = [
    createBwrapBackend(),
    createUnshareBackend(),
    createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn: () => {} }),
  ];
  const backends: DoctorReport["backends"] = [];
  for (const backend of candidates)
    backends.push({ name: backend.name, isolated: backend.isolated, availability: await backend.check() });
  const autoIndex = backends.findIndex((b) => b.isolated && b.availability.available);
  const autoBackend = autoIndex >= 0 ? candidates[autoIndex] : undefined;

  const tool = (name: "bwrap" | "unshare", pkg: string) => {
    const path = findTool(name);
    return (path && versionOf(path)) ?? `not installed (apt-get install ${pkg})`;
  };
  const python = versionOf(SANDBOX_PYTHON);
  const tools: DoctorReport["tools"] = [
    { name: "bwrap", version: tool("bwrap", "bubblewrap") },
    { name: "util-linux", version: tool("unshare", "util-linux") },
    {
      name: "python3",
      version: python
        ? `${python} (${SANDBOX_PYTHON})`
        : `${SANDBOX_PYTHON} not found (apt-get install python3)`,
    },
    { name: "pytest", version: await pytestVersion(autoBackend) },
    { name: "workspaces", version: await workspaceHandOver() },
    { name: "node", version: `${process.version} (${process.execPath})` },
  ];
  const environments: DoctorReport["environments"] = [];
  for (const environment of ENVIRONMENTS)
    environments.push({ kind: environment.kind, ...(await environment.supported()) });
  return { backends, auto: autoBackend?.name ?? null, tools, environments, suite: suiteTools() };
}

async function pytestVersion(backend: SandboxBackend | undefined): Promise<string> {
  const argv = [SANDBOX_PYTHON, "-m", "pytest", "--version"];
  const fix = "apt-get install python3-pytest";
  if (!backend) {
    const result = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", env: {}, timeout: 30_000 });
    const line = firstLine(`${result.stdout ?? ""}\n${result.stderr ?? ""}`);
    return result.status === 0 && line
      ? `${line} (on the host: no sandbox)`
      : `not importable by ${SANDBOX_PYTHON} (${fix})`;
  }
  const workspace = await mkdtemp(join(tmpdir(), "gagar-doctor-"));
  try {
    const result = await backend.run({
      argv,
      workspace,
      env: { PYTHONPYCACHEPREFIX: "" },
      timeoutMs: 30_000,
    });
    const line = firstLine(`${result.stdout}\n${result.stderr}`);
    if (result.exitCode === 0 && line) return `${line} (inside the ${backend.name} sandbox)`;
    return `not importable by ${SANDBOX_PYTHON} inside the ${backend.name} sandbox (${fix})`;
  } catch (error) {
    return `could not run ${SANDBOX_PYTHON} inside the ${backend.name} sandbox: ${(error as Error).message}`;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** How candidate workspaces reach their sandbox uid on this host (idmapped-lowers.ts). */
async function workspaceHandOver(): Promise<string> {
  if (process.getuid?.() !== 0) return "copied per candidate (overlay and idmapped mounts need root)";
  const { ok, why } = await IdmappedLowers.probe();
  return ok
    ? "overlay on an idmapped snapshot (cost independent of the repository's size)"
    : `overlay, handed over with chown -R (grows with the repository): ${why ?? "idmapped mounts unavailable"}`;
}

function firstLine(text: string): string | undefined {
  return text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
}

const NAME_WIDTH = 12;

/** The report as text: one block per backend, then what `auto` means here, then tool versions. */
export function formatDoctorReport(report: DoctorReport): string {
  const lines = ["gagar doctor: sandbox backends on this host (strongest first)", ""];
  for (const { name, isolated, availability } of report.backends) {
    let state: string;
    if (!availability.available) state = "[missing]  not available";
    else if (!isolated) state = "[opt-in]   usable only with --allow-unsandboxed: NO isolation";
    else state = name === report.auto ? "[ok]       available (auto picks this)" : "[ok]       available";
    lines.push(`  ${name.padEnd(NAME_WIDTH)} ${state}`);
    for (const item of availability.missing) lines.push(`  ${"".padEnd(NAME_WIDTH)}   - ${item}`);
  }
  lines.push("");
  const picked = report.backends.find((b) => b.name === report.auto);
  if (picked) {
    lines.push(`--sandbox auto: ${picked.name}, which on this host does not protect against:`);
    for (const weakness of picked.availability.weaknesses) lines.push(`  - ${weakness}`);
    if (picked !== report.backends[0]) {
      lines.push("  - everything bwrap adds over it: install bubblewrap (apt-get install bubblewrap)");
    }
  } else {
    lines.push(
      "--sandbox auto: NONE. No sandbox works on this host, and gagar never runs candidates unsandboxed on its own.",
    );
    lines.push(
      "  Fix one of the missing items above; --sandbox unsandboxed --allow-unsandboxed runs with NO isolation.",
    );
  }
  lines.push("", "tools");
  for (const { name, version } of report.tools) lines.push(`  ${name.padEnd(NAME_WIDTH)} ${version}`);
  lines.push("", "task environments (task.json environment.kind)");
  for (const { kind, ok, missing } of report.environments) {
    lines.push(
      `  ${kind.padEnd(NAME_WIDTH)} ${ok ? "[ok]       supported" : "[missing]  not supported here"}`,
    );
    for (const item of missing) lines.push(`  ${"".padEnd(NAME_WIDTH)}   - ${item}`);
  }
  lines.push("", "for the test suite and optional features");
  for (const { name, version, usedBy, install } of report.suite) {
    lines.push(`  ${name.padEnd(NAME_WIDTH)} ${version ?? `[missing]  not installed (${install})`}`);
    lines.push(`  ${"".padEnd(NAME_WIDTH)}   used by ${usedBy}`);
  }
  lines.push("");
  lines.push(
    report.auto
      ? `OK: candidate code runs in the ${report.auto} sandbox.`
      : "NOT OK: no real sandbox is available on this host.",
  );
  return `${lines.join("\n")}\n`;
}

/** `gagar doctor`: exit 0 when a real sandbox (not `unsandboxed`) works on this host, 1 otherwise. */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check the sandbox backends and tools on this host; exits 1 when no real sandbox works")
    .action(async () => {
      const report = await collectDoctorReport();
      process.stdout.write(formatDoctorReport(report));
      if (!report.auto) {
        throw new SandboxError(
          "no sandbox backend works on this host (see the report above for what to fix)",
          false,
        );
      }
    });
}
