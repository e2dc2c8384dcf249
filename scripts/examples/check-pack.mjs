#!/usr/bin/env node
// Checks the example pack for real: for every task in examples/tasks/ it runs the hidden tests
//   1. on the base repository (no patch): every failToPass id must fail, every passToPass id must pass;
//   2. with reference.patch applied: every failToPass and passToPass id must pass;
//   3. with each recorded rollout's patch (examples/rollouts/<id>.jsonl): the verdict must equal the
//      rollout's meta.expected ("pass" | "fail").
// Runs are done the way gagar's verifier does them (fresh copy of repo/, `git apply`, bytecode removed,
// hidden tests laid over the workspace, task.test.command with {junit}/{tests}, PATH=/usr/bin:/bin,
// JUnit XML read back into test ids) but without a sandbox — the pack is trusted content.
//
//   node scripts/examples/check-pack.mjs [TASK_ID ...] [--jobs N] [--no-rollouts] [--json]
//
// Exits 0 when everything matches, 1 otherwise.
import { pathToFileURL } from "node:url";
import { listFiles, loadRollouts, loadTask, taskIds, toolchainProblems, verifyPatch } from "./lib.mjs";

export const PY_COMMAND = [
  "python3",
  "-B",
  "-m",
  "pytest",
  "-q",
  "-p",
  "no:cacheprovider",
  "-o",
  "junit_family=xunit1",
  "--junitxml={junit}",
  "{tests}",
];
export const JS_COMMAND = ["node", "--test", "--test-reporter=junit", "--test-reporter-destination={junit}", "{tests}"];

/** Problems with a task's files that need no test run. */
export function staticProblems(task, rollouts) {
  const p = [];
  const s = task.spec;
  if (s.id !== task.id) p.push(`task.json id "${s.id}" differs from its folder`);
  const want = s.language === "python" ? PY_COMMAND : JS_COMMAND;
  if (JSON.stringify(s.test?.command) !== JSON.stringify(want)) p.push(`test.command is not the pack's ${s.language} command`);
  if (s.timeoutSec !== 30) p.push("timeoutSec should be 30");
  if ((s.passToPass ?? []).length < 2) p.push("fewer than 2 passToPass ids");
  const hidden = listFiles(task.testsDir);
  if (hidden.length === 0) p.push("tests/ is empty");
  if (s.language !== "python" && hidden.length !== 1) {
    p.push("a JavaScript task must have exactly one hidden test file (node's JUnit report does not name files)");
  }
  for (const id of [...s.failToPass, ...(s.passToPass ?? [])]) {
    if (!hidden.includes(id.split("::")[0])) p.push(`test id ${id} is not in a hidden test file`);
  }
  if (!task.reference) p.push("reference.patch is missing");
  else {
    for (const m of task.reference.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
      if (hidden.includes(m[1]) || hidden.includes(m[2])) p.push(`reference.patch touches hidden test ${m[1]}`);
    }
  }
  if (rollouts.length < 8) p.push(`only ${rollouts.length} rollouts (need ≥ 8)`);
  const passing = rollouts.filter((r) => r.meta?.expected === "pass");
  const failing = rollouts.filter((r) => r.meta?.expected === "fail");
  if (failing.length < 2) p.push("fewer than 2 failing rollouts");
  if (new Set(passing.map((r) => r.meta.style)).size < 4) p.push("fewer than 4 passing rollouts of different styles");
  if (!passing.some((r) => r.meta.style === "clean-minimal")) p.push("no passing clean-minimal rollout");
  const ids = new Set();
  for (const r of rollouts) {
    if (ids.has(r.id)) p.push(`duplicate rollout id ${r.id}`);
    ids.add(r.id);
    if (r.taskId !== task.id) p.push(`rollout ${r.id} has taskId ${r.taskId}`);
    if (!["pass", "fail"].includes(r.meta?.expected)) p.push(`rollout ${r.id} has no meta.expected`);
  }
  return p;
}

async function pool(items, jobs, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

/** Every check for one task; returns {taskId, problems[], rows[]} (rows: one per rollout). */
export async function checkTask(id, { rollouts: withRollouts = true, jobs = 4 } = {}) {
  const task = loadTask(id);
  const rollouts = loadRollouts(id);
  const problems = staticProblems(task, rollouts);
  const f2p = task.spec.failToPass;
  const p2p = task.spec.passToPass ?? [];

  const jobsList = [
    { kind: "base", patch: "" },
    { kind: "reference", patch: task.reference ?? "" },
    ...(withRollouts ? rollouts.map((r) => ({ kind: "rollout", rollout: r, patch: r.patch })) : []),
  ];
  const verdicts = await pool(jobsList, jobs, (j) => verifyPatch(task, j.patch));

  const base = verdicts[0];
  for (const t of f2p) {
    if (!(t in base.tests)) problems.push(`base: failToPass ${t} missing from the report`);
    else if (base.tests[t] === "passed") problems.push(`base: failToPass ${t} passes without the fix`);
  }
  for (const t of p2p) if (base.tests[t] !== "passed") problems.push(`base: passToPass ${t} is ${base.tests[t] ?? "missing"}`);
  const ref = verdicts[1];
  if (!ref.passed) problems.push(`reference: ${ref.reason}${ref.failing ? ` (${ref.failing.join(", ")})` : ""} ${ref.message ?? ""}`);

  const rows = [];
  jobsList.forEach((j, i) => {
    if (j.kind !== "rollout") return;
    const v = verdicts[i];
    const got = v.passed ? "pass" : "fail";
    const ok = got === j.rollout.meta?.expected;
    rows.push({
      id: j.rollout.id,
      style: j.rollout.meta?.style,
      expected: j.rollout.meta?.expected,
      got,
      reason: v.reason,
      failing: v.failing ?? [],
      ok,
    });
    if (!ok) problems.push(`rollout ${j.rollout.id} (${j.rollout.meta?.style}): expected ${j.rollout.meta?.expected}, got ${got} (${v.reason}${v.failing?.length ? `: ${v.failing.join(", ")}` : ""})`);
  });
  return { taskId: id, language: task.spec.language, problems, rows, base, reference: ref };
}

function shortIds(ids) {
  const names = ids.map((t) => t.split("::").slice(1).join("::"));
  return names.length > 3 ? `${names.slice(0, 3).join(", ")} +${names.length - 3} more` : names.join(", ");
}

async function main() {
  const args = process.argv.slice(2);
  const opt = { rollouts: !args.includes("--no-rollouts"), jobs: 4, json: args.includes("--json") };
  const j = args.indexOf("--jobs");
  if (j >= 0) opt.jobs = Math.max(1, Number(args[j + 1]) || 1);
  const wanted = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--jobs");
  const all = taskIds();
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length) {
    console.error(`unknown task(s): ${unknown.join(", ")}`);
    process.exit(2);
  }
  const toolchain = toolchainProblems();
  if (toolchain.length) {
    for (const t of toolchain) console.error(`toolchain: ${t}`);
    process.exit(1);
  }
  const ids = wanted.length ? wanted : all;
  const results = [];
  for (const id of ids) {
    const r = await checkTask(id, opt);
    results.push(r);
    if (opt.json) continue;
    const f2p = r.base ? Object.keys(r.base.tests).length : 0;
    console.log(`\n${id} (${r.language}) — ${f2p} hidden tests; base ${r.base.reason}, reference ${r.reference.reason}`);
    for (const row of r.rows) {
      console.log(`  ${row.ok ? "ok  " : "BAD "} ${row.id.padEnd(34)} ${String(row.style).padEnd(22)} expected ${row.expected}  got ${row.got}${row.got === "fail" ? ` (${row.reason}${row.failing.length ? `: ${shortIds(row.failing)}` : ""})` : ""}`);
    }
    for (const p of r.problems) console.log(`  PROBLEM ${p}`);
  }
  const bad = results.reduce((n, r) => n + r.problems.length, 0);
  if (opt.json) {
    console.log(JSON.stringify(results.map(({ taskId, problems, rows }) => ({ taskId, problems, rows })), null, 2));
  } else {
    const nRollouts = results.reduce((n, r) => n + r.rows.length, 0);
    console.log(`\n${results.length} tasks, ${nRollouts} rollouts checked: ${bad === 0 ? "all as expected" : `${bad} problem(s)`}`);
  }
  process.exit(bad === 0 ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
