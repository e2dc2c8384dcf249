import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allocateBatchBuffers, computeBatchAdvantages } from "../src/advantage/batch.ts";
import { tierPositions } from "../src/advantage/positions.ts";
import { report, timeMedian } from "./stats.ts";

const CANDIDATES = 1_000_000;
const GROUP_SIZE = 8;
const LAMBDA = 0.5;
const REPS = 7;

/** Seeded generator so both sides see the same random groups every run. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random groups: each candidate passes with a per-group pass rate; passing ones get random tiers with ties. */
function makeBatch() {
  const rand = mulberry32(42);
  const rewards = new Float64Array(CANDIDATES);
  const passing = new Uint8Array(CANDIDATES);
  const position = new Float64Array(CANDIDATES);
  const groups = CANDIDATES / GROUP_SIZE;
  const offsets = new Int32Array(groups + 1);
  for (let g = 0; g < groups; g++) {
    const start = g * GROUP_SIZE;
    offsets[g + 1] = start + GROUP_SIZE;
    const rate = rand();
    const labels: number[] = [];
    for (let i = start; i < start + GROUP_SIZE; i++) {
      const pass = rand() < rate;
      passing[i] = pass ? 1 : 0;
      rewards[i] = pass ? 1 : 0;
      labels[i - start] = pass ? Math.floor(rand() * 4) : -1;
    }
    const tiers = [...new Set(labels.filter((l) => l >= 0))].sort();
    const q = tierPositions(tiers.map((t) => labels.filter((l) => l === t).length));
    for (let i = start; i < start + GROUP_SIZE; i++) {
      const t = labels[i - start]!;
      position[i] = t >= 0 ? q[tiers.indexOf(t)]! : 0;
    }
  }
  return { rewards, passing, position, offsets };
}

export async function run(): Promise<void> {
  const batch = makeBatch();
  const options = {
    estimator: "grpo",
    scheme: "linear" as const,
    lambda: LAMBDA,
    preserve: "sequence" as const,
  };
  // Output buffers are reused across calls, as a trainer would across steps (numpy's allocator
  // likewise reuses freed memory between repetitions).
  const buffers = allocateBatchBuffers(CANDIDATES);
  let result = computeBatchAdvantages(batch, options, buffers);
  const jsMs = await timeMedian(REPS, () => {
    result = computeBatchAdvantages(batch, options, buffers);
  });

  const dir = mkdtempSync(join(tmpdir(), "gagar-bench-"));
  try {
    const prefix = join(dir, "batch");
    writeFileSync(`${prefix}.rewards`, batch.rewards);
    writeFileSync(`${prefix}.passing`, batch.passing);
    writeFileSync(`${prefix}.position`, batch.position);
    const py = spawnSync(
      "python3",
      [
        join(import.meta.dirname, "advantages_numpy.py"),
        prefix,
        String(GROUP_SIZE),
        String(LAMBDA),
        String(REPS),
      ],
      { encoding: "utf8" },
    );
    if (py.status !== 0) {
      report("advantages: numpy baseline", `unavailable (${py.stderr.trim().split("\n").at(-1)})`);
      report("advantages: gagar (TypeScript)", `${(CANDIDATES / jsMs / 1000).toFixed(1)} M candidates/s`);
      return;
    }
    const { medianMs: npMs, numpy } = JSON.parse(py.stdout) as { medianMs: number; numpy: string };
    const buf = readFileSync(`${prefix}.numpy-out`);
    const npOut = new Float64Array(buf.buffer, buf.byteOffset, CANDIDATES);
    let maxDiff = 0;
    for (let i = 0; i < CANDIDATES; i++)
      maxDiff = Math.max(maxDiff, Math.abs(npOut[i]! - result.advantage[i]!));
    const perSec = (ms: number) =>
      `${(CANDIDATES / ms / 1000).toFixed(1)} M candidates/s (${ms.toFixed(1)} ms)`;
    report(`advantages 1M in groups of ${GROUP_SIZE}: gagar`, perSec(jsMs));
    report(`advantages 1M in groups of ${GROUP_SIZE}: numpy ${numpy}`, perSec(npMs));
    report(
      "advantages: speed ratio gagar/numpy (goal ≥ 1)",
      `${(npMs / jsMs).toFixed(2)}x  (max |diff| ${maxDiff.toExponential(1)})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
