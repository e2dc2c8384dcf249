"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): what the observed fs, child_process and async_hooks
// calls mean. A hidden test opened, the report channel written, the tests run again: each attributed to
// the frame that made the call (node-guard-code.cjs `actorOf`), and a violation only when that frame is
// code under test and nothing gives the event an honest reading.
const fs = require("node:fs");
const { fileURLToPath } = require("node:url");

const statSync = fs.statSync;
const fstatSync = fs.fstatSync;
const isArray = Array.isArray;

const RUNNER_SCRIPT =
  /(?:^|\/)(?:_?mocha|jest|vitest)(?:\.[cm]?js)?$|\/mocha\/bin\/_?mocha(?:\.js)?$|\/jest(?:-cli)?\/bin\/jest\.js$|\/vitest\/vitest\.mjs$/;
const PACKAGE_MANAGER = /(?:^|\/)(?:npm|yarn|pnpm)$/;
const OWN_LOCATION = /\b__filename\b|\b__dirname\b|\bimport\.meta\.(?:url|dirname|filename)\b/;

/**
 * `code`: node-guard-code.cjs; `emit(kind, detail, where, ambiguous)`; `guarded(fn)`: runs fn unless the
 * guard is already busy; `workspace`, `testSources` (workspace-relative), `testModules` (those of them that
 * declare tests, and the canaries: test-modules.ts); `reportInode`/`reportFd`: the
 * report pipe (its inode from the runner) and the descriptor it has in the test command.
 */
module.exports = function events({
  code,
  emit,
  guarded,
  workspace,
  testSources,
  testModules,
  reportInode,
  reportFd,
}) {
  /** `dev:ino` of every hidden test module and canary → its workspace-relative path. */
  const testInodes = new Map();
  for (const rel of testSources) {
    try {
      const stat = statSync(`${workspace}/${rel}`);
      testInodes.set(`${stat.dev}:${stat.ino}`, rel);
    } catch {
      // not in this run's workspace
    }
  }
  /** Descriptors of the report pipe in this process: fd 3 when it is one, and those opened on it. */
  const reportFds = new Set();
  if (reportInode > 0) {
    try {
      const stat = fstatSync(reportFd);
      if (stat.isFIFO() && stat.ino === reportInode) reportFds.add(reportFd);
    } catch {
      // no such descriptor here
    }
  }

  /** What a path opens: a hidden test (its workspace-relative path), the report pipe, or nothing.
   * Matched by inode, so a symlink, another name for the file or /proc/self/fd/N is the file it is. */
  function targetOf(target) {
    if (typeof target === "number") return null;
    const path = pathOf(target);
    if (path === null) return null;
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return null;
    }
    if (reportInode > 0 && stat.ino === reportInode && stat.isFIFO()) return { report: true };
    const test = testInodes.get(`${stat.dev}:${stat.ino}`);
    return test === undefined ? null : { test };
  }

  /** Whether a hidden test module refers to its own location, so that it may hand its path to the code
   * it tests (`parse(__filename)`): its being read is then no evidence by itself. */
  function mayHandItsPath(rel) {
    const text = code.diskText(`${workspace}/${rel}`);
    return text !== null && OWN_LOCATION.test(text);
  }

  function where(frame, callee) {
    return frame ? code.sourcePosition(frame.file, frame.line, frame.column, callee) : null;
  }

  /** A path opened (`reading`: to read; else only the report pipe matters). */
  function onOpen(args, wrapper, reading = true) {
    const target = targetOf(args[0]);
    if (target === null || (!reading && !target.report)) return;
    guarded(() => {
      const stack = code.currentStack();
      const { actor, kind, above, viaLoader } = code.actorOf(stack);
      if (target.report) {
        if (kind === "candidate")
          emit(
            "harness-tampering",
            "code under test opened the test report channel",
            where(actor, wrapper.name),
          );
        return;
      }
      const test = target.test;
      if (kind === "candidate") {
        const testsOnStack = stack.frames
          .filter((f) => code.kindOf(f.file) === "test")
          .map((f) => code.relative(f.file));
        const why = stack.formatting
          ? "while formatting a stack trace"
          : viaLoader
            ? "as a module"
            : [test, ...testsOnStack].some((t) => t && mayHandItsPath(t))
              ? "by a path a test may have handed it"
              : null;
        const detail = `code under test read the hidden test ${test}${why ? ` ${why}` : ""}`;
        emit("test-source-read", detail, where(actor, wrapper.name), why !== null);
      } else if (kind === "eval" && !stack.formatting) {
        // Code compiled from a string (an eval'd worker's): who wrote it is not on this stack.
        emit("test-source-read", `code compiled from a string read the hidden test ${test}`, null, true);
      } else if (above && !stack.formatting) {
        const detail = `a package read the hidden test ${test} for code under test`;
        emit("test-source-read", detail, where(above, null), true);
      }
    });
  }

  function afterOpen(args, fd) {
    if (typeof fd === "number" && targetOf(args[0])?.report) reportFds.add(fd);
  }

  function onFdWrite(args, wrapper) {
    const fd = args[0];
    if (typeof fd !== "number" || !reportFds.has(fd)) return;
    guarded(() => {
      const { actor, kind } = code.actorOf(code.currentStack());
      if (kind === "candidate")
        emit(
          "harness-tampering",
          "code under test wrote to the test report channel",
          where(actor, wrapper.name),
        );
    });
  }

  /**
   * Whether a command line runs the tests again: the test runner (its executable or script, `node
   * --test`, `npm test`), a hidden test module or canary (resolved to the file), or node with node:test's
   * child marker, whose output node:test's parent reads as a test file's results. An executable fixture
   * that lives in a test directory, or comes with the hidden tests but declares none, is none of these.
   */
  function runsTests(args, name) {
    const words = [];
    for (const arg of args) {
      if (typeof arg === "string") words.push(...arg.split(/\s+/).filter(Boolean));
      else if (isArray(arg)) for (const a of arg) words.push(...String(a).split(/\s+/).filter(Boolean));
    }
    const text = words.join(" ");
    const options = args.find((a) => a && typeof a === "object" && !isArray(a));
    const env = options?.env ?? process.env;
    const cwd = typeof options?.cwd === "string" ? options.cwd : process.cwd();
    const node =
      name === "fork" || /(?:^|\/)node(?:js)?$/.test(words[0] ?? "") || words[0] === process.execPath;
    for (let i = 0; i < words.length; i++) {
      const word = words[i].replace(/^["']|["']$/g, "");
      if (RUNNER_SCRIPT.test(word)) return { text, why: "the test runner" };
      if (word === "--test" && (node || words.slice(0, i).some((w) => /(?:^|\/)node$/.test(w))))
        return { text, why: "the test runner" };
      const next = words[i + 1] === "run" ? words[i + 2] : words[i + 1];
      if (PACKAGE_MANAGER.test(word) && /^(?:test|t)$/.test(next ?? ""))
        return { text, why: "the test script" };
      if (/[/.]/.test(word)) {
        // A hidden file that declares no tests (an executable fixture) does not run them.
        const test = targetOf(word.startsWith("/") ? word : `${cwd}/${word}`)?.test;
        if (test && testModules.has(test)) return { text, why: `the hidden test ${test}` };
      }
    }
    // node started with the marker node:test's children carry (inherited from one: any node started
    // inside a test), writing to this process's stdout: node:test's runner reads what it prints as this
    // file's results. Honest code does it too (a CLI library running a node script), hence ambiguous.
    if (node && typeof env?.NODE_TEST_CONTEXT === "string" && sharesStdout(name, options))
      return { text, why: "node:test's child marker, on node:test's result stream", ambiguous: true };
    return null;
  }

  function onSpawn(args, wrapper) {
    guarded(() => {
      const found = runsTests(args, wrapper.name);
      if (!found) return;
      const { actor, kind, above } = code.actorOf(code.currentStack());
      const detail = `started a process that runs ${found.why}: ${found.text.slice(0, 200)}`;
      if (kind === "candidate")
        emit(
          "test-reexec",
          `code under test ${detail}`,
          where(actor, wrapper.name),
          Boolean(found.ambiguous),
        );
      else if (kind === "eval") emit("test-reexec", `code compiled from a string ${detail}`, null, true);
      else if (above)
        emit("test-reexec", `a package, called by code under test, ${detail}`, where(above, null), true);
    });
  }

  /** node:test's running test is what async_hooks hands out inside a test: taking it is not evidence of
   * anything by itself (context-propagation libraries do), hence ambiguous. */
  function onAsyncResource(_args, wrapper) {
    guarded(() => {
      const { actor, kind } = code.actorOf(code.currentStack());
      if (kind === "candidate")
        emit(
          "harness-tampering",
          "code under test took the running async resource (node:test's running test is one)",
          where(actor, wrapper.name),
          true,
        );
    });
  }

  return { onOpen, afterOpen, onFdWrite, onSpawn, onAsyncResource };
};

/** Whether a child started by `name` (child_process's function) with `options` writes to this
 * process's stdout. */
function sharesStdout(name, options) {
  const stdio = options?.stdio;
  if (stdio === undefined) return name === "fork" && !options?.silent;
  const out = typeof stdio === "string" ? stdio : isArray(stdio) ? stdio[1] : undefined;
  return out === "inherit" || out === 1 || out === process.stdout;
}

function pathOf(target) {
  let path = target;
  if (path instanceof URL) path = path.href;
  else if (Buffer.isBuffer(path)) path = path.toString("utf8");
  if (typeof path !== "string") return null;
  if (path.startsWith("file:")) {
    try {
      path = fileURLToPath(path);
    } catch {
      return null;
    }
  }
  return path;
}
