import { join } from "node:path";
import type { Finding } from "../../contracts/finding.ts";
import type { FileDiff } from "../../diff/parse.ts";
import type { RunResult } from "../../sandbox/types.ts";
import { scanSuspicious } from "../gate/suspicious-patterns.ts";
import { GUARD_CAP } from "../guards/guard-setup.ts";
import { type CandidateRun, REPORT_CAP } from "../run/candidate-run.ts";
import { outputTail } from "../run/output-tail.ts";
import { safeReadFile } from "../run/safe-read.ts";
import { canaryNames, maskCanaryNames } from "../runners/canary.ts";
import type { TaskState } from "../workspace/task-state.ts";
import { type Graded, grade } from "./verdict.ts";

/** What the verdict of one candidate's run is made from, besides the run itself. */
export interface CandidateVerdictInput {
  task: TaskState;
  /** The secret the runner had to echo (RunnerRequest.token). */
  token: string;
  /** What the gate let through, and what it found on the way. */
  gate: { files: FileDiff[]; findings: Finding[] };
  /** Report every test the run reported, not only the task's ids (Graded.observed). */
  observe?: boolean;
}

/**
 * The verdict of a finished run: its outputs read safely from /out after the sandbox is gone
 * (safe-read.ts), graded (verdict.ts), and every finding of the candidate in one list: the gate's, the
 * scan of the patch's text (suspicious-patterns.ts), the run's own (guards, protected paths), and one
 * per protected file something stood in the place of. Hidden-test lines and the names of this run's
 * canaries are kept out of every diagnostic.
 */
export function candidateVerdict(input: CandidateVerdictInput, run: CandidateRun, result: RunResult): Graded {
  const { task } = input;
  const { pack } = task;
  const out = (name: string, cap: number) => safeReadFile(join(run.workspace.outDir, name), cap);
  // What no diagnostic may show: hidden-test lines, and the names of this run's canaries.
  const canaries = canaryNames(run.plan, pack.hiddenTests, task.testSources);
  const secrets = [...task.secrets, ...canaries];
  const graded = grade({
    token: input.token,
    failToPass: pack.spec.failToPass,
    passToPass: pack.spec.passToPass,
    missingPassToPass: pack.spec.missingPassToPass,
    plan: run.plan,
    timeoutSec: pack.spec.timeoutSec,
    sandbox: result,
    status: out("status.json", 1 << 20),
    reports: run.plan.runs.map((_, i) => out(`report-${i}.xml`, REPORT_CAP)),
    guards: run.plan.runs.map((_, i) => out(`guard-${i}.log`, GUARD_CAP)),
    observe: input.observe,
    secrets,
  });
  // What the run itself found (guards, protected paths) may name a canary's module; what the patch
  // scans found is about the candidate's own text.
  const masked = (text: string) => maskCanaryNames(text, canaries);
  const runFindings: Finding[] = graded.findings.map((f) => ({
    ...f,
    message: masked(f.message),
    ...(f.file !== undefined && { file: masked(f.file) }),
  }));
  const findings = [...input.gate.findings, ...scanSuspicious(input.gate.files), ...runFindings];
  for (const path of result.replacedPaths ?? []) {
    findings.push({
      kind: "test-tampering",
      severity: "critical",
      file: masked(path.replace(/^\/workspace\//, "")),
      message: masked(
        `something stood where a protected file is laid over the workspace (${path}); it was removed`,
      ),
    });
  }
  return { ...graded, outputTail: outputTail(result.stdout, result.stderr, secrets), findings };
}
