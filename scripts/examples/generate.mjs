#!/usr/bin/env node
// Regenerates examples/tasks/<id>/reference.patch and examples/rollouts/<id>.jsonl from the specs in
// scripts/examples/tasks/<id>/rollouts.mjs (+ the file variants in scripts/examples/tasks/<id>/files/).
//
//   node scripts/examples/generate.mjs [TASK_ID ...]
//
// Every patch is real `git diff` output: the task's repo/ is committed into a scratch git repository,
// the edits are made there, and `git diff --cached` (after `git add -A`) is the patch. Rollout
// transcripts are produced by replaying each step for real in that scratch checkout — shell commands run
// with PATH=/usr/bin:/bin, files are read and edited — and recording the actual tool output, normalized
// so regeneration is byte-for-byte stable (the scratch path becomes /workspace, timings are seeded).
//
// Token counts: trajectory.tokens = Σ over messages of ceil(characters / 4), where a message's characters
// are its content plus its JSON-serialized tool_calls. That is the usual ~4 characters per token of
// English and code for BPE tokenizers; it counts the conversation once (not the re-sent prompt per turn).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ROLLOUTS_DIR,
  SANDBOX_ENV,
  SPECS_DIR,
  TASKS_DIR,
  copyRepo,
  loadTask,
  run,
  taskIds,
  tempDir,
} from "./lib.mjs";

export const SYSTEM_PROMPT = `You are an autonomous software engineering agent. A repository is checked out at /workspace and a user has reported an issue in it. Your job is to change the code so that the issue is resolved.

Tools:
- shell {command}: run a bash command with /workspace as the working directory; stdout and stderr are returned (long output is truncated). There is no network access.
- read_file {path}: show a file with line numbers.
- write_file {path, content}: create or overwrite a file.
- str_replace {path, old, new}: replace the single exact occurrence of \`old\` in a file with \`new\`.
- submit {}: finish. The final diff of /workspace against the original checkout is your answer.

Guidelines: reproduce the problem before changing code, keep the change focused on the issue, do not modify existing tests unless the issue asks for it, and run the test suite before you submit. Work step by step and call exactly one tool per turn.`;

export function userPrompt(statement) {
  return `<issue>\n${statement.trim()}\n</issue>\n\nThe repository is checked out at /workspace. Please resolve the issue.`;
}

const OUTPUT_CAP = 8000;
const GIT_ENV = {
  GIT_AUTHOR_NAME: "gagar examples",
  GIT_AUTHOR_EMAIL: "examples@gagar.invalid",
  GIT_COMMITTER_NAME: "gagar examples",
  GIT_COMMITTER_EMAIL: "examples@gagar.invalid",
  GIT_AUTHOR_DATE: "2026-01-05T09:30:00Z",
  GIT_COMMITTER_DATE: "2026-01-05T09:30:00Z",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

function git(ws, args) {
  const res = run(["git", "-c", "core.quotepath=false", "-c", "init.defaultBranch=main", ...args], {
    cwd: ws,
    env: { ...SANDBOX_ENV, ...GIT_ENV, GIT_CEILING_DIRECTORIES: dirname(ws) },
  });
  if (res.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${res.stderr}`);
  return res.stdout;
}

/** A scratch git checkout of the task's repo at a single "base" commit. */
function scratchCheckout(task) {
  const ws = copyRepo(task, join(tempDir("gagar-gen-"), "workspace"));
  git(ws, ["init", "-q"]);
  git(ws, ["add", "-A"]);
  git(ws, ["commit", "-q", "-m", "Base commit"]);
  // Fixed timestamps, so `ls -l` in a transcript is reproducible.
  run(["find", dirname(ws), "-exec", "touch", "-h", "-d", "2026-01-05 09:30:00", "{}", "+"]);
  return ws;
}

function finalDiff(ws) {
  git(ws, ["add", "-A"]);
  return git(ws, ["diff", "--cached", "--no-color", "--no-ext-diff"]);
}

function resolveContent(specDir, content) {
  if (typeof content === "string") return content;
  if (content && typeof content.$file === "string") return readFileSync(join(specDir, "files", content.$file), "utf8");
  throw new Error(`bad content ${JSON.stringify(content)}`);
}

function seeded(seed) {
  let i = 0;
  return () => {
    const h = createHash("sha256").update(`${seed}:${i++}`).digest();
    return h.readUInt32BE(0) / 2 ** 32;
  };
}

function normalize(text, ws, rand) {
  let out = text.split(ws).join("/workspace");
  // pytest: "3 passed in 0.07s"; node:test TAP / spec: "duration_ms: 1.2345" / "duration_ms 51.8"
  out = out.replace(/ in (\d+\.\d+)s\b/g, () => ` in ${(0.02 + rand() * 0.1).toFixed(2)}s`);
  // node:test: per-test "duration_ms: 1.2345" (TAP) is small; the run summary "duration_ms 51.8" is not.
  // Values come from the seeded generator only (never from the real timing), so output is reproducible.
  out = out.replace(/duration_ms(:?) (\d+(?:\.\d+)?)/g, (_m, colon) => {
    const n = colon ? 0.2 + rand() * 3 : 60 + rand() * 90;
    return `duration_ms${colon} ${n.toFixed(6).replace(/0+$/, "").replace(/\.$/, "")}`;
  });
  // node:test spec reporter: "✔ adds (0.52ms)"
  out = out.replace(/\((\d+(?:\.\d+)?)ms\)/g, () => `(${(0.15 + rand() * 4).toFixed(6).replace(/0+$/, "").replace(/\.$/, "")}ms)`);
  // pytest junit / timestamps are never shown to the agent, but strip any absolute tmp dirs left over.
  out = out.replace(/\/tmp\/gagar-gen-[A-Za-z0-9]+/g, "/tmp/tmpdir");
  return out;
}

function cap(text) {
  if (text.length <= OUTPUT_CAP) return text;
  const head = text.slice(0, 2000);
  const tail = text.slice(-5000);
  return `${head}\n... [output truncated: ${text.length - 7000} characters omitted] ...\n${tail}`;
}

function numbered(content) {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n");
}

/** Perform one tool call in ws; returns {output, ok, exitCode}. */
function perform(ws, step, specDir, rand) {
  const a = step.args;
  switch (step.tool) {
    case "shell": {
      const command = a.command.split("/workspace").join(ws);
      const res = run(["/bin/bash", "-c", `exec 2>&1\n${command}`], {
        cwd: ws,
        env: { ...SANDBOX_ENV, ...GIT_ENV, GIT_CEILING_DIRECTORIES: dirname(ws), TERM: "dumb" },
        timeout: 60_000,
      });
      let out = normalize(res.stdout ?? "", ws, rand).replace(/\n+$/, "");
      if (res.status !== 0) out += `${out ? "\n\n" : ""}[exit code: ${res.status ?? res.signal}]`;
      return { output: cap(out || "(no output)"), ok: res.status === 0, exitCode: res.status };
    }
    case "read_file": {
      const p = join(ws, a.path);
      if (!existsSync(p)) return { output: `Error: ${a.path}: no such file`, ok: false };
      return { output: cap(numbered(readFileSync(p, "utf8"))), ok: true };
    }
    case "write_file": {
      const p = join(ws, a.path);
      const content = resolveContent(specDir, a.content);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
      return { output: `Wrote ${Buffer.byteLength(content)} bytes to ${a.path}`, ok: true, content };
    }
    case "str_replace": {
      const p = join(ws, a.path);
      if (!existsSync(p)) return { output: `Error: ${a.path}: no such file`, ok: false };
      const text = readFileSync(p, "utf8");
      const old = resolveContent(specDir, a.old);
      const count = text.split(old).length - 1;
      if (count !== 1) {
        return {
          output: `Error: \`old\` must occur exactly once in ${a.path}, found ${count} occurrence${count === 1 ? "" : "s"}. No changes made.`,
          ok: false,
        };
      }
      writeFileSync(p, text.replace(old, () => resolveContent(specDir, a.new)));
      return { output: `Edited ${a.path}: replaced 1 occurrence.`, ok: true };
    }
    case "submit":
      return { output: "Submitted. Your changes have been recorded.", ok: true };
    default:
      throw new Error(`unknown tool ${step.tool}`);
  }
}

function callId(seed) {
  return `call_${createHash("sha256").update(seed).digest("base64url").replace(/[-_]/g, "").slice(0, 24)}`;
}

export function tokenEstimate(messages) {
  let total = 0;
  for (const m of messages) {
    const chars = (m.content ?? "").length + (m.tool_calls ? JSON.stringify(m.tool_calls).length : 0);
    total += Math.ceil(chars / 4);
  }
  return total;
}

/** Apply a list of edit steps (no transcript) and return the diff: used for reference.patch. */
function editsToPatch(task, steps, specDir) {
  const ws = scratchCheckout(task);
  try {
    const rand = seeded("reference");
    for (const s of steps) {
      const r = perform(ws, s, specDir, rand);
      if (!r.ok) throw new Error(`${task.id} reference: ${s.tool} ${s.args.path ?? ""}: ${r.output}`);
    }
    return finalDiff(ws);
  } finally {
    rmSync(dirname(ws), { recursive: true, force: true });
  }
}

function replay(task, spec, specDir) {
  const ws = scratchCheckout(task);
  const problems = [];
  try {
    const rand = seeded(`${task.id}/${spec.id}`);
    const messages = [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: userPrompt(task.spec.statement) },
    ];
    spec.steps.forEach((step, i) => {
      const id = callId(`${task.id}/${spec.id}/${i}`);
      const args = { ...step.args };
      if (step.tool === "write_file") args.content = resolveContent(specDir, args.content);
      if (step.tool === "str_replace") {
        args.old = resolveContent(specDir, args.old);
        args.new = resolveContent(specDir, args.new);
      }
      messages.push({
        role: "assistant",
        content: step.thought ?? null,
        tool_calls: [{ id, type: "function", function: { name: step.tool, arguments: JSON.stringify(args) } }],
      });
      const r = perform(ws, step, specDir, rand);
      messages.push({ role: "tool", tool_call_id: id, content: r.output });
      const where = `${spec.id} step ${i} (${step.tool} ${step.args.command ?? step.args.path ?? ""})`;
      if (step.tool === "shell" && step.expectExit !== undefined && r.exitCode !== step.expectExit) {
        problems.push(`${where}: exit ${r.exitCode}, expected ${step.expectExit}\n${r.output.slice(-1500)}`);
      }
      if (step.tool !== "shell" && !r.ok && !step.expectError) problems.push(`${where}: ${r.output}`);
      if (step.expectError && r.ok) problems.push(`${where}: expected an error`);
    });
    const submitted = spec.steps.at(-1)?.tool === "submit";
    const patch = finalDiff(ws);
    if (spec.style === "no-op" ? patch !== "" : patch === "") problems.push(`${spec.id}: unexpected patch emptiness`);
    const turns = messages.filter((m) => m.role === "assistant").length;
    const record = {
      id: `${task.id}-${spec.id}`,
      taskId: task.id,
      groupId: `${task.id}-g1`,
      patch,
      trajectory: {
        turns,
        tokens: tokenEstimate(messages),
        finishReason: spec.finishReason ?? (submitted ? "submit" : "max_turns"),
        messages,
      },
      meta: { style: spec.style, expected: spec.expected, notes: spec.notes },
    };
    return { record, problems };
  } finally {
    rmSync(dirname(ws), { recursive: true, force: true });
  }
}

/** examples/ROLLOUTS.md: one table per task, generated so it never drifts from the JSONL files. */
function rolloutIndex(ids) {
  const out = [
    "# Recorded rollouts",
    "",
    "Generated by `node scripts/examples/generate.mjs` — do not edit. `expected` is the verdict of the hidden",
    "tests (checked by `node scripts/examples/check-pack.mjs`); `tokens` is Σ ceil(characters / 4) over the",
    "transcript's messages.",
    "",
  ];
  for (const id of ids) {
    const task = loadTask(id);
    const title = task.spec.statement.split("\n")[0];
    out.push(`## ${id} (${task.spec.language})`, "", `> ${title}`, "");
    out.push("| rollout | style | expected | turns | tokens | notes |", "|---|---|---|---|---|---|");
    for (const line of readFileSync(join(ROLLOUTS_DIR, `${id}.jsonl`), "utf8").split("\n").filter(Boolean)) {
      const r = JSON.parse(line);
      const notes = (r.meta.notes ?? "").replaceAll("|", "\\|");
      out.push(
        `| ${r.id} | ${r.meta.style} | ${r.meta.expected} | ${r.trajectory.turns} | ${r.trajectory.tokens} | ${notes} |`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

async function main() {
  const wanted = process.argv.slice(2);
  const ids = taskIds().filter((id) => existsSync(join(SPECS_DIR, id, "rollouts.mjs")));
  const selected = wanted.length ? ids.filter((id) => wanted.includes(id)) : ids;
  if (wanted.length && selected.length !== wanted.length) {
    console.error(`unknown task id(s): ${wanted.filter((w) => !ids.includes(w)).join(", ")}`);
    process.exit(2);
  }
  let failed = false;
  mkdirSync(ROLLOUTS_DIR, { recursive: true });
  for (const id of selected) {
    const specDir = join(SPECS_DIR, id);
    const mod = await import(pathToFileURL(join(specDir, "rollouts.mjs")).href);
    const task = loadTask(id);
    const reference = editsToPatch(task, mod.reference, specDir);
    writeFileSync(join(TASKS_DIR, id, "reference.patch"), reference);
    const lines = [];
    for (const spec of mod.rollouts) {
      const { record, problems } = replay(task, spec, specDir);
      for (const p of problems) {
        failed = true;
        console.error(`PROBLEM ${id}: ${p}`);
      }
      lines.push(JSON.stringify(record));
    }
    writeFileSync(join(ROLLOUTS_DIR, `${id}.jsonl`), `${lines.join("\n")}\n`);
    console.log(`${id}: reference.patch (${reference.split("\n").length} lines), ${lines.length} rollouts`);
  }
  if (!wanted.length) {
    writeFileSync(join(dirname(ROLLOUTS_DIR), "ROLLOUTS.md"), rolloutIndex(selected));
    console.log("examples/ROLLOUTS.md");
  }
  if (failed) {
    console.error("generation finished with problems (see above)");
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
