"use strict";
// gagar's guard inside every Node.js process of a test run (docs/security.md §7). The verifier preloads
// it with NODE_OPTIONS="--require /gagar/support/<random>.cjs", so it runs before the test framework and
// before any of the candidate's code, in the test runner, in every process it starts (node:test's
// per-file children, jest's and vitest's workers) and in every worker thread. It reports, on a pipe only
// the trusted runner reads (sandbox-runner.py), what the candidate's code does to the harness from inside:
// - test-source-read (class 4): a hidden test module or a canary opened by code under test;
// - test-reexec (class 2): a process started by code under test that runs the test runner again, names
//   a hidden test module or carries node:test's child marker;
// - harness-tampering (classes 2 and 3): a function of the harness (the runner adapter's declared
//   surface, the assertion libraries the hidden tests use, node's assert) replaced by a function
//   defined in code under test, a test's function defined there, or a write to the report channel.
//
// It only observes. It installs no accessor and no replacement on any object the program shares; what
// the program sees is what it would see without the guard (results, output, exceptions, descriptors),
// with three exceptions kept small: the functions of fs, child_process and async_hooks it observes are
// wrappers (node-guard-observed.cjs), an `exit` listener, and a non-enumerable symbol on `process`
// through which gagar's reporters and wrappers reach it. Harness functions are compared with what they
// were when the guard first saw them at checkpoints (node-guard-watches.cjs): after each test where the
// runner adapter gives a hook (gagar's reporters and test wrappers call `checkpoint`), and at exit. A
// replacement is judged by where the new function was DEFINED (node-guard-origins.cjs, only when a
// replacement is seen). Calls of fs and child_process are attributed to the frame that made them
// (node-guard-code.cjs, node-guard-events.cjs), never to the nearest workspace file on the stack.
//
// A record is a violation (the run is forged) only on unambiguous evidence; what has an honest reading
// too carries "ambiguous": true (a major finding the grader weighs). Each record is one JSON line written
// with one writeSync, atomic on a pipe, so it cannot be taken back.
const fs = require("node:fs");

// Taken before any other code runs: the program may replace any of them later.
const writeSync = fs.writeSync;
const openSync = fs.openSync;
const statSync = fs.statSync;
const readFileSync = fs.readFileSync;
const stringify = JSON.stringify;

const config = safeJson(process.env.GAGAR_GUARD) || {};
const FD = Number(config.fd) | 0;
const PIPE_INODE = Number(process.env.GAGAR_GUARD_PIPE) || -1;
const API_KEY = Symbol.for("gagar.guard");
const PARTS = ["code", "observed", "events", "origins", "imports", "watches"];
const threadId = require("node:worker_threads").threadId;

function safeJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

let channel = null;
const reported = new Set();

/** Writes one record; `where` is {file, line?}; `ambiguous`: an honest reading exists. */
function emit(kind, detail, where, ambiguous = false) {
  const key = `${kind}\0${detail}\0${ambiguous}`;
  if (reported.has(key) || FD <= 0) return;
  reported.add(key);
  if (channel === null) channel = findChannel();
  if (channel < 0) return;
  const record = { g: 1, pid: process.pid, kind, detail: String(detail).slice(0, 600) };
  if (threadId) record.thread = threadId;
  if (where?.file) record.file = where.file;
  if (where?.line) record.line = where.line;
  if (ambiguous) record.ambiguous = true;
  try {
    writeSync(channel, `${stringify(record)}\n`);
  } catch {
    // the channel is gone: nothing to report to
  }
}

function isFifo(path, inode) {
  try {
    const stat = statSync(path);
    return stat.isFIFO() && stat.ino === inode;
  } catch {
    return false;
  }
}

/** The guard pipe: fd FD here, or of an ancestor (node:test's per-file children do not inherit it). */
function findChannel() {
  if (isFifo(`/proc/self/fd/${FD}`, PIPE_INODE)) return FD;
  for (let pid = process.ppid; pid > 1; ) {
    const path = `/proc/${pid}/fd/${FD}`;
    if (isFifo(path, PIPE_INODE)) {
      try {
        return openSync(path, "w");
      } catch {
        return -1;
      }
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return -1;
    }
  }
  return -1;
}

let busy = false;

/** Runs a check of the guard's, unless one is running (the guard's own calls are not the program's). */
function guarded(check) {
  if (busy) return;
  busy = true;
  try {
    check();
  } catch {
    // the guard never breaks the code it watches
  } finally {
    busy = false;
  }
}

function install() {
  const files = Object.fromEntries(PARTS.map((part) => [part, `${__dirname}/node-guard-${part}.cjs`]));
  const guardFiles = new Set([__filename, ...Object.values(files)]);
  const workspace = String(config.workspace || "/workspace").replace(/\/+$/, "");
  const testSources = new Set(config.testSources || []);
  const testModules = new Set(config.testModules || config.testSources || []);
  const code = require(files.code)({
    workspace,
    testSources,
    testDirs: (config.testDirs || []).filter(Boolean).map((d) => `${d}/`),
    guardFiles,
  });
  const { observe, hideGuardFrames } = require(files.observed)({ guardFiles });
  const on = require(files.events)({
    code,
    emit,
    guarded,
    workspace,
    testSources,
    testModules,
    reportInode: Number(process.env.GAGAR_REPORT_PIPE) || -1,
    reportFd: 3,
  });
  const origins = require(files.origins)({ code });
  const harness = require(files.watches)({
    surface: Array.isArray(config.harness) ? config.harness : [],
    emit,
    code,
    origins,
    importedPackages: require(files.imports),
  });

  observe(fs, "readFileSync", (args, wrapper) => {
    guarded(() => harness.onRead(args));
    on.onOpen(args, wrapper);
  });
  for (const name of ["readFile", "createReadStream", "copyFileSync", "copyFile", "cpSync", "cp"])
    observe(fs, name, on.onOpen);
  for (const name of ["openSync", "open"]) observe(fs, name, on.onOpen, on.afterOpen);
  for (const name of ["writeFileSync", "appendFileSync", "writeFile", "appendFile", "createWriteStream"])
    observe(fs, name, (args, wrapper) => {
      on.onOpen(args, wrapper, false);
      on.onFdWrite(args, wrapper);
    });
  for (const name of ["writeSync", "write", "writev", "writevSync"]) observe(fs, name, on.onFdWrite);
  for (const name of ["readFile", "open", "copyFile", "cp"]) observe(fs.promises, name, on.onOpen);
  for (const name of ["writeFile", "appendFile"])
    observe(fs.promises, name, (args, wrapper) => on.onOpen(args, wrapper, false));
  const childProcess = require("node:child_process");
  for (const name of ["spawn", "exec", "execSync", "execFile", "execFileSync", "fork"])
    observe(childProcess, name, on.onSpawn);
  // spawnSync returns the error of a command that could not start, made while the wrapper was running.
  observe(childProcess, "spawnSync", on.onSpawn, (_args, result) => hideGuardFrames(result?.error));
  observe(require("node:async_hooks"), "executionAsyncResource", on.onAsyncResource);
  require("node:module").syncBuiltinESMExports();

  harness.watchBuiltins("start");
  if (typeof process.env.NODE_TEST_CONTEXT === "string") harness.watchBuiltins("test-child");
  const checkpoint = () => guarded(harness.checkpoint);
  /**
   * What gagar's reporters and test wrappers call, in this process or in a sandboxed realm of it (jest's
   * environment copies `process`, symbols included): `checkpoint()` after a test; `checkTest(title, fn,
   * file)` with a test about to run; `watchModule(specifier, exports, resolvedFile?, late?)` with a
   * library's exports (or ES module namespace) as the tests see it; `watchRealm(globalThis, late?)` with
   * a test realm's global object; `watchObject(label, object, keys?, packageName?, late?)` with an object
   * that carries results. `late`: handed after code under test may have run (judged at once).
   */
  const api = Object.freeze({
    checkpoint,
    checkTest: (title, fn, file) => guarded(() => harness.checkTestFunction(String(title), fn, file)),
    watchModule: (specifier, exports, resolved, late) =>
      guarded(() => harness.watchModule(specifier, exports, resolved, late)),
    watchRealm: (global, late) => guarded(() => harness.watchRealm(global, late)),
    watchObject: (label, object, keys, packageName, late) =>
      guarded(() => harness.watchObject(label, object, keys, packageName, late)),
  });
  Object.defineProperty(process, API_KEY, {
    value: api,
    enumerable: false,
    configurable: false,
    writable: false,
  });
  process.prependListener("exit", checkpoint);
  emit("start", "node guard");
}

if (FD > 0) {
  try {
    install();
  } catch (error) {
    emit("start", `node guard (partly installed: ${error?.message})`);
  }
}
