import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { SandboxError } from "../../errors.ts";
import { type CandidateRunDeps, REPORT_CAP, startCandidateRun } from "../run/candidate-run.ts";
import { safeReadFile } from "../run/safe-read.ts";
import { REPORT_FD, type TestPlan } from "../runners/types.ts";

const REPORT = "<testsuites><testcase classname='t' name='ok'/></testsuites>";

/**
 * Runs the runner once with a trivial plan in `dir`, so that a broken sandbox or toolchain is reported
 * as what it is instead of turning every candidate into `crashed`. `done` is called with `dir` once
 * the run's workspace is gone.
 */
export async function selfTest(
  deps: CandidateRunDeps,
  dir: string,
  done: (dir: string) => Promise<void>,
): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const snapshot = { dir, paths: new Set<string>(), files: [], bytes: 0 };
  const plan: TestPlan = {
    runs: [
      {
        label: "self-test",
        argv: [
          "/usr/bin/python3",
          "-c",
          `import os; os.write(${REPORT_FD}, ${JSON.stringify(REPORT)}.encode())`,
        ],
        keysOf: (c) => [c.name],
        idOf: (c) => c.name,
        canaries: [],
      },
    ],
    files: [],
    support: [],
    locate: () => null,
  };
  const run = await startCandidateRun(deps, null, plan, snapshot);
  try {
    const result = await run.go({ token: "self-test", patch: "", bytecodeDirs: [] });
    const status = safeReadFile(join(run.workspace.outDir, "status.json"), 1 << 20);
    const got = safeReadFile(join(run.workspace.outDir, "report-0.xml"), REPORT_CAP);
    const token = status.ok
      ? (JSON.parse(status.data.toString("utf8")) as { token?: unknown }).token
      : undefined;
    if (!status.ok || token !== "self-test" || !got.ok || got.data.toString() !== REPORT) {
      const why = !status.ok
        ? `status.json ${status.reason}`
        : token !== "self-test"
          ? "the runner did not pick up its token"
          : !got.ok
            ? `report ${got.reason}`
            : "report differs";
      const tail = `${result.stderr}${result.stdout}`.trim().split("\n").slice(-5).join(" | ");
      throw new SandboxError(
        `the ${deps.sandbox.name} sandbox cannot run the verifier's runner (${why}; exit ${result.exitCode}): ${tail}`,
        false,
      );
    }
  } finally {
    await run.workspace.close();
    await done(dir);
  }
}
