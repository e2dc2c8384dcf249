"use strict";
// gagar's guard inside every Node.js process of a test run (docs/security.md §7). The verifier preloads
// it with NODE_OPTIONS="--require /gagar/support/<random>.cjs", so it runs before the test framework and
// before any of the candidate's code, in the test runner and in every process it starts (node:test's
// per-file children, jest's and vitest's workers). It reports, on a pipe only the trusted runner reads
// (sandbox-runner.py), what the candidate's code does to the harness from the inside:
// - test-source-read (class 4): workspace code that is not a test or an installed package reads a
//   hidden test module or a canary (fs reads, opens and copies);
// - test-reexec (class 2): workspace code starts a process that runs the test runner or a test file;
// - harness-tampering (classes 2 and 3): workspace code replaces a function of node:assert, node:test,
//   the process's output streams or JSON (assignments go through setters that note who made them);
//   a replacement the setters did not see (a redefined property) is reported at exit.
// Each record is one JSON line written with one writeSync, atomic on a pipe. Who did what is read off
// V8's structured stack, taken with the functions captured here before any other code ran.
const fs = require("node:fs");
const { fileURLToPath } = require("node:url");

const config = safeJson(process.env.GAGAR_GUARD) || {};
const FD = Number(config.fd) | 0;
const WORKSPACE = String(config.workspace || "/workspace").replace(/\/+$/, "");
const TEST_SOURCES = new Set(config.testSources || []);
const TEST_BASENAMES = new Set([...TEST_SOURCES].map((p) => p.slice(p.lastIndexOf("/") + 1)));
const TEST_DIRS = (config.testDirs || []).filter(Boolean).map((d) => `${d}/`);
const RUNNER_WORDS = /(^|[\s/])(--test\b|mocha|_mocha|jest|vitest|node:test)/;

const writeSync = fs.writeSync;
const openSync = fs.openSync;
const statSync = fs.statSync;
const readFileSync = fs.readFileSync;
const captureStackTrace = Error.captureStackTrace;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const stringify = JSON.stringify;
const reflectApply = Reflect.apply;

let channel = null;
let busy = false;
const reported = new Set();
const kinds = new Map();
const traps = [];
/** owner → property name → trap, for the defineProperty wrappers. */
const trapsByOwner = new Map();
/** `dev:ino` of every hidden test module and canary → its workspace-relative path. */
const testInodes = new Map();

function safeJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function emit(kind, detail, where) {
  const key = `${kind}\0${detail}`;
  if (reported.has(key) || FD <= 0) return;
  reported.add(key);
  if (channel === null) channel = findChannel();
  if (channel < 0) return;
  const record = { g: 1, pid: process.pid, kind, detail: String(detail).slice(0, 600) };
  if (where) [record.file, record.line] = where;
  try {
    writeSync(channel, `${stringify(record)}\n`);
  } catch {
    // the channel is gone: nothing to report to
  }
}

const PIPE_INODE = Number(process.env.GAGAR_GUARD_PIPE) || -1;

/** Whether `path` is the guard pipe: the runner names its inode, since fd FD may be anything else here. */
function isChannel(path) {
  try {
    const stat = statSync(path);
    return stat.isFIFO() && stat.ino === PIPE_INODE;
  } catch {
    return false;
  }
}

/** The guard pipe: fd FD here, or of an ancestor (node:test's per-file children do not inherit it). */
function findChannel() {
  if (isChannel(`/proc/self/fd/${FD}`)) return FD;
  for (let pid = process.ppid; pid > 1; ) {
    const path = `/proc/${pid}/fd/${FD}`;
    if (isChannel(path)) {
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

function relative(file) {
  if (typeof file !== "string" || file === "") return null;
  let path = file;
  if (path.startsWith("file:")) {
    try {
      path = fileURLToPath(path);
    } catch {
      return null;
    }
  }
  if (!path.startsWith(`${WORKSPACE}/`)) return null;
  return path.slice(WORKSPACE.length + 1);
}

/**
 * In a worker thread that candidate code started, code with no file of its own (`new Worker(src,
 * {eval: true})`) is the candidate's too.
 */
const IN_CANDIDATE_WORKER =
  !require("node:worker_threads").isMainThread && process.env.GAGAR_CANDIDATE_WORKER === "1";

/** Whether code from `file` is the candidate's: in the workspace, and not a test, a canary or a package. */
function isCandidateFile(file) {
  if (IN_CANDIDATE_WORKER && !file.startsWith("/") && !file.startsWith("file:") && !file.startsWith("node:"))
    return true;
  let known = kinds.get(file);
  if (known !== undefined) return known;
  const rel = relative(file);
  known =
    rel !== null &&
    !TEST_SOURCES.has(rel) &&
    !TEST_DIRS.some((d) => rel.startsWith(d)) &&
    !`/${rel}`.includes("/node_modules/");
  kinds.set(file, known);
  return known;
}

/** The innermost call site of candidate code on the current stack, as [file, line], or null. */
function candidateFrame() {
  const savedPrepare = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  const holder = {};
  try {
    Error.prepareStackTrace = (_, sites) => sites;
    Error.stackTraceLimit = 200;
    captureStackTrace(holder, candidateFrame);
    const sites = holder.stack;
    if (!Array.isArray(sites)) return null;
    for (const site of sites) {
      const file = site.getFileName() ?? (IN_CANDIDATE_WORKER ? "[worker]" : null);
      if (file && isCandidateFile(file)) return [relative(file) ?? file, site.getLineNumber() || 0];
    }
    return null;
  } catch {
    return null;
  } finally {
    try {
      Error.prepareStackTrace = savedPrepare;
      Error.stackTraceLimit = savedLimit;
    } catch {
      // left as the candidate made them
    }
  }
}

/**
 * The hidden test or canary `target` opens (workspace-relative), or null. Matched by inode, so a
 * symlink, another name for the file or /proc/self/fd/N is the file it is.
 */
function testSource(target) {
  if (testInodes.size === 0 || typeof target === "number") return null;
  let path = target;
  if (path instanceof URL) path = path.href;
  else if (Buffer.isBuffer(path)) path = path.toString("utf8");
  if (typeof path !== "string") return null;
  if (path.startsWith("file:")) path = safeUrlPath(path);
  if (path === null) return null;
  try {
    const stat = statSync(path);
    return testInodes.get(`${stat.dev}:${stat.ino}`) ?? null;
  } catch {
    return null;
  }
}

function safeUrlPath(url) {
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

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

function onRead(target) {
  guarded(() => {
    const test = testSource(target);
    if (test === null) return;
    const where = candidateFrame();
    if (where) emit("test-source-read", `code under test read the hidden test ${test}`, where);
  });
}

function onSpawn(args) {
  guarded(() => {
    const words = [];
    for (const arg of args) {
      if (typeof arg === "string") words.push(...arg.split(/\s+/));
      else if (Array.isArray(arg)) for (const a of arg) words.push(...String(a).split(/\s+/));
    }
    const text = words.join(" ");
    // A node process started with node:test's child marker in its environment reports as a test file
    // of this run: its events reach the runner as if the tests had produced them.
    const options = args.find((a) => a && typeof a === "object" && !Array.isArray(a));
    const env = options?.env ?? process.env;
    const runsTests =
      RUNNER_WORDS.test(text) ||
      words.some((w) => TEST_BASENAMES.has(w.slice(w.lastIndexOf("/") + 1))) ||
      words.some((w) =>
        TEST_DIRS.some((d) => `${w.replace(/^\.\//, "")}/`.startsWith(d) || w.includes(`/${d}`)),
      ) ||
      (typeof env?.NODE_TEST_CONTEXT === "string" && /(^|\/)node$|^node\b/.test(words[0] ?? ""));
    if (!runsTests) return;
    const where = candidateFrame();
    if (where) emit("test-reexec", `code under test started the tests again: ${text.slice(0, 200)}`, where);
  });
}

function wrap(target, name, before) {
  const original = target?.[name];
  if (typeof original !== "function") return;
  const wrapped = function (...args) {
    before(args);
    return reflectApply(original, this, args);
  };
  defineProperty(wrapped, "name", { value: original.name });
  defineProperty(wrapped, "length", { value: original.length });
  target[name] = wrapped;
}

/**
 * Replaces a data property with an accessor whose setter notes a replacement made by candidate code.
 * The value read and written is unchanged, so honest code (and the tests' own mocks) see no difference.
 */
function trap(owner, label, name) {
  const descriptor = getOwnPropertyDescriptor(owner, name);
  if (!descriptor || !("value" in descriptor) || typeof descriptor.value !== "function") return;
  if (!descriptor.configurable) return;
  let value = descriptor.value;
  const get = () => value;
  const set = (next) => {
    if (next !== value) {
      guarded(() => {
        const where = candidateFrame();
        if (where) emit("harness-tampering", `${label}.${name} was replaced by code under test`, where);
      });
    }
    value = next;
  };
  defineProperty(owner, name, { get, set, enumerable: descriptor.enumerable, configurable: true });
  const entry = { owner, label, name, get, redefinedByTests: false };
  traps.push(entry);
  if (!trapsByOwner.has(owner)) trapsByOwner.set(owner, new Map());
  trapsByOwner.get(owner).set(name, entry);
}

function trapAll(owner, label) {
  if (!owner || (typeof owner !== "object" && typeof owner !== "function")) return;
  for (const name of Object.getOwnPropertyNames(owner)) {
    if (name === "prototype" || name === "constructor") continue;
    trap(owner, label, name);
  }
}

/**
 * A trapped property redefined (Object.defineProperty and kin) is a replacement too: by candidate code,
 * reported at once; by the tests or a package (jest.spyOn redefines accessors), allowed.
 */
function onDefine(owner, name) {
  const entry = trapsByOwner.get(owner)?.get(typeof name === "symbol" ? name : String(name));
  if (!entry) return;
  guarded(() => {
    const where = candidateFrame();
    if (where)
      emit("harness-tampering", `${entry.label}.${entry.name} was redefined by code under test`, where);
    else entry.redefinedByTests = true;
  });
}

function wrapDefiners() {
  wrap(Object, "defineProperty", (args) => onDefine(args[0], args[1]));
  wrap(Reflect, "defineProperty", (args) => onDefine(args[0], args[1]));
  wrap(Object, "defineProperties", (args) => {
    if (args[1] && typeof args[1] === "object")
      for (const name of Reflect.ownKeys(args[1])) onDefine(args[0], name);
  });
}

/** At exit: a trap replaced by a way the wrappers did not see. */
function checkTraps() {
  for (const t of traps) {
    if (t.redefinedByTests) continue;
    const now = getOwnPropertyDescriptor(t.owner, t.name);
    if (!now || now.get !== t.get)
      emit("harness-tampering", `${t.label}.${t.name} was redefined while the tests ran`, null);
  }
}

function install() {
  for (const rel of TEST_SOURCES) {
    try {
      const stat = statSync(`${WORKSPACE}/${rel}`);
      testInodes.set(`${stat.dev}:${stat.ino}`, rel);
    } catch {
      // not in this run's workspace
    }
  }
  for (const name of [
    "readFileSync",
    "readFile",
    "openSync",
    "open",
    "createReadStream",
    "copyFileSync",
    "copyFile",
    "cpSync",
    "cp",
  ])
    wrap(fs, name, (args) => onRead(args[0]));
  for (const name of ["readFile", "open", "copyFile", "cp"])
    wrap(fs.promises, name, (args) => onRead(args[0]));
  const childProcess = require("node:child_process");
  for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"])
    wrap(childProcess, name, onSpawn);
  const assert = require("node:assert");
  trapAll(assert, "assert");
  if (assert.strict && assert.strict !== assert) trapAll(assert.strict, "assert.strict");
  trapAll(require("node:test"), "node:test");
  trap(require("node:util"), "util", "isDeepStrictEqual");
  for (const name of ["stringify", "parse"]) trap(JSON, "JSON", name);
  trap(Object, "Object", "is");
  for (const [stream, label] of [
    [process.stdout, "process.stdout"],
    [process.stderr, "process.stderr"],
  ]) {
    for (const name of ["write", "_write"]) {
      if (!Object.hasOwn(stream, name))
        defineProperty(stream, name, { value: stream[name], writable: true, configurable: true });
      trap(stream, label, name);
    }
  }
  // Below the streams' own methods: a replaced prototype method rewrites every stream's output.
  const { Writable } = require("node:stream");
  for (const name of ["write", "_write", "_writev"]) trap(Writable.prototype, "Writable.prototype", name);
  for (const name of ["_write", "_writev"])
    trap(require("node:net").Socket.prototype, "net.Socket.prototype", name);
  wrapDefiners();
  // node:test's running Test is what async_hooks hands out inside a test: a way to its internals.
  const asyncHooks = require("node:async_hooks");
  wrap(asyncHooks, "executionAsyncResource", () =>
    guarded(() => {
      const where = candidateFrame();
      if (where)
        emit(
          "harness-tampering",
          "code under test took the running test's async resource (node:test's internals)",
          where,
        );
    }),
  );
  const workerThreads = require("node:worker_threads");
  const Worker = workerThreads.Worker;
  workerThreads.Worker = class extends Worker {
    constructor(source, options = {}) {
      let env = options.env;
      guarded(() => {
        if (candidateFrame())
          env = { ...(env && typeof env === "object" ? env : process.env), GAGAR_CANDIDATE_WORKER: "1" };
      });
      super(source, env === options.env ? options : { ...options, env });
    }
  };
  require("node:module").syncBuiltinESMExports();
  process.prependListener("exit", checkTraps);
  emit("start", "node guard");
}

if (FD > 0) {
  try {
    install();
  } catch (error) {
    emit("start", `node guard (partly installed: ${error?.message})`);
  }
}
