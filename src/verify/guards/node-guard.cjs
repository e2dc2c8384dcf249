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
//   defined in code under test, or a write to the report channel from code under test.
//
// It only observes. It installs no accessor and no replacement on any object the program shares; what
// the program sees is what it would see without the guard (results, output, exceptions, descriptors),
// with three exceptions kept small: the functions of fs, child_process and async_hooks it observes are
// wrappers (same name, length and own properties; an error thrown through one has the wrapper's frame
// removed from its stack), an `exit` listener, and a non-enumerable symbol on `process` through which
// gagar's reporters and wrappers reach it. Harness functions are compared with what they were when the
// guard first saw them at checkpoints: after each test where the runner adapter gives a hook (gagar's
// reporters and test wrappers call `checkpoint`), and at exit. A replacement is judged by where the new
// function was DEFINED (its source location, through the inspector protocol, only when a replacement is
// seen): in code under test it is a violation; built in, bound or compiled from a string with no
// attributable origin it is ambiguous; in a test or a package (the tests' own mocks) it is nothing.
// Events on fs and child_process are attributed to the frame that made the call (the first frame that is
// not Node's own), never to the nearest workspace file on the stack.
//
// A record is a violation (the run is forged) only on unambiguous evidence; what has an honest reading
// too carries "ambiguous": true (a major finding the grader weighs). Each record is one JSON line written
// with one writeSync, atomic on a pipe, so it cannot be taken back.
const fs = require("node:fs");
const vm = require("node:vm");
const { fileURLToPath } = require("node:url");

const config = safeJson(process.env.GAGAR_GUARD) || {};
const FD = Number(config.fd) | 0;
const WORKSPACE = String(config.workspace || "/workspace").replace(/\/+$/, "");
const TEST_SOURCES = new Set(config.testSources || []);
const TEST_DIRS = (config.testDirs || []).filter(Boolean).map((d) => `${d}/`);
/** Objects of the harness this run's runner adapter and the hidden tests' assertion libraries declare. */
const SURFACE = Array.isArray(config.harness) ? config.harness : [];
const SELF = __filename;
const PIPE_INODE = Number(process.env.GAGAR_GUARD_PIPE) || -1;
const REPORT_INODE = Number(process.env.GAGAR_REPORT_PIPE) || -1;
const REPORT_FD = 3;
const API_KEY = Symbol.for("gagar.guard");

// Captured before any other code runs: the program may replace any of them later.
const writeSync = fs.writeSync;
const openSync = fs.openSync;
const statSync = fs.statSync;
const fstatSync = fs.fstatSync;
const readFileSync = fs.readFileSync;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const getPrototypeOf = Object.getPrototypeOf;
const ownKeys = Reflect.ownKeys;
const hasOwn = Object.hasOwn;
const stringify = JSON.stringify;
const reflectApply = Reflect.apply;
const reflectConstruct = Reflect.construct;
const functionToString = Function.prototype.toString;
const errorToString = Error.prototype.toString;
const isArray = Array.isArray;
const threadId = require("node:worker_threads").threadId;
const isProxy = require("node:util").types.isProxy;

function safeJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------------------- channel

let channel = null;
const reported = new Set();

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

// ------------------------------------------------------------------------------------- whose code is it

/** Workspace-relative path of a file name or file URL, or null outside the workspace. */
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

const kinds = new Map();

/**
 * What wrote the code of a file: "internal" (Node itself), "guard", "candidate" (workspace code that is
 * not a test, a canary or a package), "test", "package" (node_modules, or anything outside the
 * workspace: the toolchain, gagar's own reporters), "eval" (code with no file: a string compiled at run
 * time, an eval'd worker).
 */
function kindOf(file) {
  if (typeof file !== "string" || file === "") return "eval";
  let known = kinds.get(file);
  if (known !== undefined) return known;
  const rel = relative(file);
  if (file === SELF) known = "guard";
  else if (file.startsWith("node:")) known = "internal";
  else if (rel === null) known = file.startsWith("/") || file.startsWith("file:") ? "package" : "eval";
  else if (`/${rel}`.includes("/node_modules/")) known = "package";
  else if (TEST_SOURCES.has(rel) || TEST_DIRS.some((d) => rel.startsWith(d))) known = "test";
  else known = "candidate";
  kinds.set(file, known);
  return known;
}

// ------------------------------------------------------------------------------------------- stacks

/**
 * Structured frames of the current stack, taken in a realm of the guard's own, so that the program's
 * `Error.prepareStackTrace` and `Error.stackTraceLimit` are neither called nor touched. Inside V8's
 * formatting of a stack trace (a `prepareStackTrace` running) V8 formats nested captures itself: the
 * frames are then parsed from that text, and `formatting` says so.
 */
const captureInRealm = vm.runInContext(
  `(function capture(limit) {
    const holder = {};
    Error.prepareStackTrace = (_, sites) => sites;
    Error.stackTraceLimit = limit;
    Error.captureStackTrace(holder, capture);
    return holder.stack;
  })`,
  vm.createContext({}),
);

function currentStack() {
  const raw = captureInRealm(200);
  if (!isArray(raw)) return { frames: parseStack(String(raw)), formatting: true };
  const frames = raw.map(frameOf);
  const formatting = frames.some(
    (f) => f.fn === "prepareStackTraceCallback" && f.file === "node:internal/errors",
  );
  return { frames, formatting };
}

function frameOf(site) {
  let file = site.getFileName() ?? site.getScriptNameOrSourceURL?.() ?? "";
  // Code eval'd inside a file is that file's code.
  if (!file && site.isEval()) file = evalOriginFile(site.getEvalOrigin()) ?? "";
  return {
    file,
    line: site.getLineNumber() || 0,
    column: site.getColumnNumber() || 0,
    fn: site.getFunctionName() || "",
  };
}

function evalOriginFile(origin) {
  const m = /\(([^()]*?):\d+:\d+\)/.exec(String(origin || ""));
  return m ? m[1] : null;
}

/** Frames of a stack formatted by V8 ("    at f (file:1:2)"). */
function parseStack(text) {
  const frames = [];
  for (const line of text.split("\n")) {
    const m = /^\s+at (?:(.*?) \((.*):(\d+):(\d+)\)|(.*):(\d+):(\d+))$/.exec(line);
    if (!m) continue;
    const fn = (m[1] || "").replace(/^(?:async |new )/, "");
    const file = m[2] ?? m[5];
    frames.push({ file, line: Number(m[3] ?? m[6]), column: Number(m[4] ?? m[7]), fn: fn.split(" [as ")[0] });
  }
  return frames;
}

/**
 * Who made the call the guard is looking at: the first frame that is neither the guard's nor Node's own.
 * `above` is the innermost frame of code under test further out (what asked a package to do it);
 * `viaLoader` says whether Node's module loader is between the call and the actor (a require).
 */
function actorOf({ frames }) {
  let viaLoader = false;
  let index = 0;
  for (; index < frames.length; index++) {
    const kind = kindOf(frames[index].file);
    if (kind === "guard") continue;
    if (kind === "internal") {
      if (frames[index].file.startsWith("node:internal/modules/")) viaLoader = true;
      continue;
    }
    break;
  }
  const actor = frames[index] ?? null;
  const kind = actor ? kindOf(actor.file) : "internal";
  let above = null;
  if (kind !== "candidate" && kind !== "test")
    above = frames.slice(index + 1).find((f) => kindOf(f.file) === "candidate") ?? null;
  return { actor, kind, above, viaLoader };
}

// --------------------------------------------------------------------------------- source positions

const sourceTexts = new Map();

/** The text of a file on disk (workspace files and packages), cached; null when unreadable or huge. */
function diskText(file) {
  if (sourceTexts.has(file)) return sourceTexts.get(file);
  let text = null;
  try {
    const path = file.startsWith("file:") ? fileURLToPath(file) : file;
    if (statSync(path).size <= 4 * 2 ** 20) text = readFileSync(path, "utf8");
  } catch {
    text = null;
  }
  sourceTexts.set(file, text);
  return text;
}

/**
 * Where to report a position of `file` (1-based line and column of the running code): the original
 * source through a source map Node holds, else the line itself when the text on disk there is what ran
 * (`expect` is text the code at that column starts with, such as the called function's name). Code
 * transformed in memory (coverage instrumentation, transpilers) runs lines that are not the file's:
 * the line is then left out rather than invented.
 */
function sourcePosition(file, line, column, expect) {
  const rel = relative(file) ?? file;
  if (!line) return { file: rel };
  const mapped = throughSourceMap(file, line, column);
  if (mapped) return mapped;
  const text = diskText(file);
  if (text === null) return { file: rel };
  const lines = text.split("\n");
  const at = lines[line - 1];
  if (at === undefined) return { file: rel };
  if (expect && !textAt(at, column - 1, expect)) return { file: rel };
  return { file: rel, line };
}

function textAt(lineText, index, expect) {
  if (index < 0) return false;
  // A member call's position is its property name; a plain call's, its callee.
  const probe = expect.slice(0, Math.min(expect.length, 40));
  for (let length = probe.length; length >= Math.min(4, probe.length); length--)
    if (
      lineText.startsWith(probe.slice(0, length), index) ||
      expect.includes(lineText.slice(index, index + length))
    )
      return length >= Math.min(4, probe.length);
  return false;
}

let findSourceMap = null;
function throughSourceMap(file, line, column) {
  try {
    findSourceMap ??= require("node:module").findSourceMap;
    const map = findSourceMap?.(file.startsWith("/") || file.startsWith("file:") ? file : "");
    if (!map) return null;
    const entry = map.findEntry(line - 1, column - 1);
    if (!entry || typeof entry.originalSource !== "string" || typeof entry.originalLine !== "number")
      return null;
    const source = relative(entry.originalSource) ?? entry.originalSource;
    return { file: source, line: entry.originalLine + 1 };
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------------------ transparent wrappers

/**
 * Errors thrown through an observing wrapper: the wrapper's frame is taken out of the stack, which is
 * formatted as the program's formatter would (its `Error.prepareStackTrace`, or Node's). The wrapper
 * raises `Error.stackTraceLimit` by one for the call, so the trace keeps as many frames as without it.
 */
function hideGuardFrames(error) {
  if (typeof error !== "object" || error === null || !hasOwn(error, "stack")) return;
  const descriptor = getOwnPropertyDescriptor(Error, "prepareStackTrace");
  if (descriptor && !("value" in descriptor)) return;
  const formatter = Error.prepareStackTrace;
  if (typeof formatter !== "function" && process.sourceMapsEnabled) return;
  try {
    Error.prepareStackTrace = function (err, sites) {
      const kept = err === error && isArray(sites) ? sites.filter((s) => s.getFileName() !== SELF) : sites;
      if (typeof formatter === "function") return reflectApply(formatter, this, [err, kept]);
      let head;
      try {
        head = reflectApply(errorToString, err, []);
      } catch {
        head = "Error";
      }
      return `${head}${kept.map((s) => `\n    at ${s}`).join("")}`;
    };
    const stack = error.stack;
    if (typeof stack === "string" && stack.includes(SELF)) {
      const own = getOwnPropertyDescriptor(error, "stack");
      if (own && "value" in own && own.writable)
        error.stack = stack
          .split("\n")
          .filter((line) => !line.includes(`(${SELF}:`) && !line.includes(`at ${SELF}:`))
          .join("\n");
    }
  } catch {
    // left as it was
  } finally {
    try {
      if (descriptor) defineProperty(Error, "prepareStackTrace", descriptor);
      else delete Error.prepareStackTrace;
    } catch {
      // the program made it unconfigurable meanwhile
    }
  }
}

let depth = 0;

/**
 * A wrapper of `original` that calls `check(args)` first (only for the outermost observed call: Node's
 * own functions call each other) and is otherwise the function: same `this`, arguments, result and
 * exceptions, same name, length and own properties (a `util.promisify.custom` is observed too).
 */
function observed(original, check, after) {
  function observing(...args) {
    if (depth === 0 && check) {
      depth++;
      try {
        check(args, observing);
      } catch {
        // the guard never breaks the code it watches
      } finally {
        depth--;
      }
    }
    const limit = Error.stackTraceLimit;
    const raise = typeof limit === "number" && limit >= 0 && limit < 2 ** 30;
    if (raise) Error.stackTraceLimit = limit + 1;
    depth++;
    try {
      const result = new.target
        ? reflectConstruct(original, args, new.target)
        : reflectApply(original, this, args);
      if (after && depth === 1) after(args, result);
      return result;
    } catch (error) {
      hideGuardFrames(error);
      throw error;
    } finally {
      depth--;
      if (raise && Error.stackTraceLimit === limit + 1) Error.stackTraceLimit = limit;
    }
  }
  for (const key of ownKeys(original)) {
    if (key === "name" || key === "length" || key === "arguments" || key === "caller") continue;
    const descriptor = getOwnPropertyDescriptor(original, key);
    if (key === PROMISIFY_CUSTOM && typeof descriptor.value === "function")
      descriptor.value = observed(descriptor.value, check, after);
    try {
      defineProperty(observing, key, descriptor);
    } catch {
      // not definable on a plain function
    }
  }
  defineProperty(observing, "name", getOwnPropertyDescriptor(original, "name"));
  defineProperty(observing, "length", getOwnPropertyDescriptor(original, "length"));
  return observing;
}

const PROMISIFY_CUSTOM = Symbol.for("nodejs.util.promisify.custom");

function observe(target, name, check, after) {
  const descriptor = target && getOwnPropertyDescriptor(target, name);
  if (!descriptor || typeof descriptor.value !== "function") return;
  defineProperty(target, name, { ...descriptor, value: observed(descriptor.value, check, after) });
}

// ------------------------------------------------------------------------------- reads, writes, spawns

let busy = false;

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

/** `dev:ino` of every hidden test module and canary → its workspace-relative path. */
const testInodes = new Map();

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

/** What a path opens: a hidden test (its workspace-relative path), the report pipe, or nothing. Matched
 * by inode, so a symlink, another name for the file or /proc/self/fd/N is the file it is. */
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
  if (REPORT_INODE > 0 && stat.ino === REPORT_INODE && stat.isFIFO()) return { report: true };
  const test = testInodes.get(`${stat.dev}:${stat.ino}`);
  return test === undefined ? null : { test };
}

/** Whether a hidden test module refers to its own location, so that it may hand its path to the code it
 * tests (`parse(__filename)`): reading it is then not evidence of anything by itself. */
function mayHandItsPath(rel) {
  const text = diskText(`${WORKSPACE}/${rel}`);
  return (
    text !== null && /\b__filename\b|\b__dirname\b|\bimport\.meta\.(?:url|dirname|filename)\b/.test(text)
  );
}

function where(frame, expect) {
  return frame ? sourcePosition(frame.file, frame.line, frame.column, expect) : null;
}

function onOpen(args, wrapper, reading = true) {
  const target = targetOf(args[0]);
  if (target === null || (!reading && !target.report)) return;
  guarded(() => {
    const stack = currentStack();
    const { actor, kind, above, viaLoader } = actorOf(stack);
    const name = wrapper.name;
    if (target.report) {
      if (kind === "candidate")
        emit("harness-tampering", "code under test opened the test report channel", where(actor, name));
      return;
    }
    const test = target.test;
    if (kind === "candidate") {
      const testsOnStack = stack.frames.filter((f) => kindOf(f.file) === "test").map((f) => relative(f.file));
      const why = stack.formatting
        ? "while formatting a stack trace"
        : viaLoader
          ? "as a module"
          : [test, ...testsOnStack].some((t) => t && mayHandItsPath(t))
            ? "by a path a test may have handed it"
            : null;
      if (why === null)
        emit("test-source-read", `code under test read the hidden test ${test}`, where(actor, name));
      else
        emit(
          "test-source-read",
          `code under test read the hidden test ${test} ${why}`,
          where(actor, name),
          true,
        );
    } else if (kind === "eval" && !stack.formatting) {
      // Code compiled from a string (an eval'd worker's): who wrote it is not on this stack.
      emit("test-source-read", `code compiled from a string read the hidden test ${test}`, null, true);
    } else if (above && !stack.formatting) {
      emit(
        "test-source-read",
        `a package read the hidden test ${test} for code under test`,
        where(above, null),
        true,
      );
    }
  });
}

/** fds this process opened on the report pipe, besides fd 3 itself. */
const reportFds = new Set();

function onFdWrite(args, wrapper) {
  const fd = args[0];
  if (typeof fd !== "number" || !reportFds.has(fd)) return;
  guarded(() => {
    const { actor, kind } = actorOf(currentStack());
    if (kind === "candidate")
      emit(
        "harness-tampering",
        "code under test wrote to the test report channel",
        where(actor, wrapper.name),
      );
  });
}

function afterOpen(args, fd) {
  if (typeof fd === "number" && targetOf(args[0])?.report) reportFds.add(fd);
}

const RUNNER_SCRIPT =
  /(?:^|\/)(?:_?mocha|jest|vitest)(?:\.[cm]?js)?$|\/mocha\/bin\/_?mocha(?:\.js)?$|\/jest(?:-cli)?\/bin\/jest\.js$|\/vitest\/vitest\.mjs$/;
const PACKAGE_MANAGER = /(?:^|\/)(?:npm|yarn|pnpm)$/;

/**
 * Whether a command line runs the tests again: the test runner (its executable or script, `node --test`,
 * `npm test`), a hidden test module or canary (resolved to the file), or node with node:test's child
 * marker, whose output node:test's parent reads as a test file's results. An executable fixture that
 * lives in a test directory is none of these.
 */
function runsTests(args) {
  const words = [];
  for (const arg of args) {
    if (typeof arg === "string") words.push(...arg.split(/\s+/).filter(Boolean));
    else if (isArray(arg)) for (const a of arg) words.push(...String(a).split(/\s+/).filter(Boolean));
  }
  const options = args.find((a) => a && typeof a === "object" && !isArray(a));
  const env = options?.env ?? process.env;
  const cwd = typeof options?.cwd === "string" ? options.cwd : process.cwd();
  const node = /(?:^|\/)node(?:js)?$/.test(words[0] ?? "") || words[0] === process.execPath;
  for (let i = 0; i < words.length; i++) {
    const word = words[i].replace(/^["']|["']$/g, "");
    if (RUNNER_SCRIPT.test(word)) return { text: words.join(" "), why: "the test runner" };
    if (word === "--test" && (node || words.slice(0, i).some((w) => /(?:^|\/)node$/.test(w))))
      return { text: words.join(" "), why: "the test runner" };
    if (
      PACKAGE_MANAGER.test(word) &&
      /^(?:test|t)$/.test(words[i + 1] === "run" ? words[i + 2] : (words[i + 1] ?? ""))
    )
      return { text: words.join(" "), why: "the test script" };
    if (/[/.]/.test(word)) {
      const test = targetOf(word.startsWith("/") ? word : `${cwd}/${word}`)?.test;
      if (test) return { text: words.join(" "), why: `the hidden test ${test}` };
    }
  }
  if (node && typeof env?.NODE_TEST_CONTEXT === "string")
    return { text: words.join(" "), why: "node:test's child marker" };
  return null;
}

function onSpawn(args, wrapper) {
  guarded(() => {
    const found = runsTests(args);
    if (!found) return;
    const { actor, kind, above } = actorOf(currentStack());
    const detail = `started a process that runs ${found.why}: ${found.text.slice(0, 200)}`;
    if (kind === "candidate") emit("test-reexec", `code under test ${detail}`, where(actor, wrapper.name));
    else if (kind === "eval") emit("test-reexec", `code compiled from a string ${detail}`, null, true);
    else if (above)
      emit("test-reexec", `a package, called by code under test, ${detail}`, where(above, null), true);
  });
}

function onAsyncResource(_args, wrapper) {
  guarded(() => {
    const { actor, kind } = actorOf(currentStack());
    if (kind === "candidate")
      emit(
        "harness-tampering",
        "code under test took the running async resource (node:test's running test is one)",
        where(actor, wrapper.name),
        true,
      );
  });
}

// -------------------------------------------------------------------------- where a function was made

let session = null;
const scriptUrls = new Map();
const PROBE = `__gagar_probe_${process.pid}_${Math.random().toString(36).slice(2)}`;

function post(method, params) {
  let result;
  let failure;
  session.post(method, params, (error, value) => {
    failure = error;
    result = value;
  });
  if (failure) throw failure;
  return result;
}

function inspectorSession() {
  if (session === null) {
    try {
      const inspector = require("node:inspector");
      session = new inspector.Session();
      session.connect();
    } catch {
      session = false;
    }
  }
  return session || null;
}

/** The URL of a script by id; unknown ids are looked up by a moment of Debugger.enable, no code running. */
function scriptUrl(scriptId) {
  if (!scriptUrls.has(scriptId)) {
    const listener = (message) => scriptUrls.set(message.params.scriptId, message.params.url);
    session.on("Debugger.scriptParsed", listener);
    try {
      post("Debugger.enable", {});
    } finally {
      try {
        post("Debugger.disable", {});
      } catch {
        // the session is gone
      }
      session.off("Debugger.scriptParsed", listener);
    }
  }
  return scriptUrls.get(scriptId) ?? null;
}

function remote(value) {
  defineProperty(globalThis, PROBE, { value, configurable: true, writable: true });
  try {
    return post("Runtime.evaluate", { expression: `globalThis[${stringify(PROBE)}]`, objectGroup: "gagar" })
      .result;
  } finally {
    delete globalThis[PROBE];
  }
}

function internalsOf(objectId) {
  const answer = post("Runtime.getProperties", { objectId, ownProperties: true });
  const internals = {};
  for (const p of answer.internalProperties ?? []) internals[p.name] = p.value;
  return internals;
}

const origins = new WeakMap();

/**
 * Where a function (or an object standing for one: a Proxy) was defined: { kind, file, line }, `kind`
 * as kindOf says, or "unknown" (built in, bound to one, compiled from a string whose closures say
 * nothing, or no inspector). Bound functions are judged by their target, proxies by their handler's
 * traps, code compiled from a string by the functions it closes over.
 */
function originOf(value) {
  if ((typeof value !== "function" && typeof value !== "object") || value === null)
    return { kind: "unknown" };
  if (origins.has(value)) return origins.get(value);
  let origin = { kind: "unknown" };
  if (inspectorSession()) {
    try {
      origin = originOfRemote(remote(value), value, 0);
    } catch {
      origin = { kind: "unknown" };
    } finally {
      try {
        post("Runtime.releaseObjectGroup", { objectGroup: "gagar" });
      } catch {
        // the session is gone
      }
    }
  }
  origins.set(value, origin);
  return origin;
}

function originOfRemote(object, value, level) {
  if (!object?.objectId || level > 3) return { kind: "unknown" };
  const internals = internalsOf(object.objectId);
  if (internals["[[TargetFunction]]"])
    return originOfRemote(internals["[[TargetFunction]]"], null, level + 1);
  if (internals["[[Handler]]"]) {
    const handler = post("Runtime.getProperties", {
      objectId: internals["[[Handler]]"].objectId,
      ownProperties: true,
    });
    return strongest(
      (handler.result ?? [])
        .filter((p) => p.value?.type === "function")
        .map((p) => originOfRemote(p.value, null, level + 1)),
    );
  }
  const location = internals["[[FunctionLocation]]"]?.value;
  if (!location) return { kind: "unknown" };
  const url = scriptUrl(location.scriptId);
  const kind = url === null ? "unknown" : kindOf(url);
  if (kind === "eval") {
    // A string compiled at run time: judged by what it closes over (a mock library's function, or the
    // candidate's own).
    const scopes = internals["[[Scopes]]"];
    if (!scopes?.objectId || level > 1) return { kind: "unknown" };
    const found = [];
    for (const scope of post("Runtime.getProperties", { objectId: scopes.objectId, ownProperties: true })
      .result ?? []) {
      if (!scope.value?.objectId || /^Global|^Script/.test(scope.value.description ?? "")) continue;
      for (const variable of post("Runtime.getProperties", {
        objectId: scope.value.objectId,
        ownProperties: true,
      }).result ?? [])
        if (variable.value?.type === "function") found.push(originOfRemote(variable.value, null, level + 1));
    }
    const judged = strongest(found);
    return judged.kind === "unknown" ? judged : { ...judged, compiled: true };
  }
  if (kind !== "candidate") return { kind, file: url };
  let text = "";
  try {
    if (value) text = reflectApply(functionToString, value, []);
  } catch {
    text = "";
  }
  const position = sourcePosition(url, location.lineNumber + 1, location.columnNumber + 1, text || null);
  if (!text) delete position.line;
  return { kind, ...position };
}

/** Of several origins, the one that decides: code under test, then unknown, then anything else. */
function strongest(origins) {
  return (
    origins.find((o) => o.kind === "candidate") ??
    origins.find((o) => o.kind === "unknown") ??
    origins[0] ?? { kind: "unknown" }
  );
}

// ------------------------------------------------------------------------------------ harness watches

/**
 * A watched object: a label, the object, and per key the parts of its descriptor (own or inherited:
 * what `object[key]` resolves to) when the guard first saw it. `packageName` names the package it
 * belongs to, whose own functions its slots may be reassigned to (mocha's per-file globals).
 */
const watches = [];
const watchedObjects = new WeakSet();
/** Whether code under test has been loaded (a workspace source file read by a module loader). */
let candidateSeen = false;

function effectiveDescriptor(object, key) {
  for (let o = object, hops = 0; o !== null && hops < 32; o = getPrototypeOf(o), hops++) {
    // A proxy's traps are the program's code: the guard never calls them.
    if (isProxy(o)) return undefined;
    const d = getOwnPropertyDescriptor(o, key);
    if (d) return d;
  }
  return undefined;
}

function partsOf(descriptor) {
  if (!descriptor) return null;
  return "value" in descriptor ? { value: descriptor.value } : { get: descriptor.get, set: descriptor.set };
}

/** The keys of an object worth watching: its own, and with `inherited` the function-valued keys of its
 * prototype chain below Object.prototype and Function.prototype. */
function keysOf(object, inherited) {
  const keys = new Set();
  for (let o = object, hops = 0; o !== null && hops < (inherited ? 8 : 1); o = getPrototypeOf(o), hops++) {
    if (o === Object.prototype || o === Function.prototype || isProxy(o)) break;
    for (const key of ownKeys(o)) {
      if (key === "constructor" || key === "prototype" || key === "caller" || key === "arguments") continue;
      const d = getOwnPropertyDescriptor(o, key);
      if (hops === 0 || typeof d?.value === "function" || d?.get) keys.add(key);
    }
  }
  return keys;
}

/**
 * Starts watching `object`. `late` says that code under test may have run before: the slots' current
 * functions are then judged at once, since a replacement made before is what the guard sees first.
 */
function watch(label, object, options = {}) {
  if ((typeof object !== "object" && typeof object !== "function") || object === null) return;
  if (watchedObjects.has(object) || isProxy(object)) return;
  watchedObjects.add(object);
  const keys = options.keys ?? keysOf(object, options.inherited);
  const seen = new Map();
  for (const key of keys) {
    try {
      seen.set(key, partsOf(effectiveDescriptor(object, key)));
    } catch {
      // an exotic object
    }
  }
  const entry = {
    label,
    object,
    seen,
    channel: Boolean(options.channel),
    packageName: options.packageName ?? null,
  };
  watches.push(entry);
  if (options.late) for (const [key, parts] of seen) judgeSlot(entry, key, null, parts);
}

function nameOf(key) {
  return typeof key === "symbol" ? `[${key.description}]` : String(key);
}

function checkWatch(entry) {
  for (const [key, before] of entry.seen) {
    let now;
    try {
      now = partsOf(effectiveDescriptor(entry.object, key));
    } catch {
      continue;
    }
    if (sameParts(before, now)) continue;
    entry.seen.set(key, now);
    judgeSlot(entry, key, before, now);
  }
}

function sameParts(a, b) {
  if (a === null || b === null) return a === b;
  return a.value === b.value && a.get === b.get && a.set === b.set;
}

/** A slot whose function changed (with no `before`: a slot seen late, or that did not exist), judged by
 * where its new function was defined. */
function judgeSlot(entry, key, before, now) {
  if (now === null) return;
  for (const part of ["value", "get", "set"]) {
    const value = now[part];
    if (before && before[part] === value) continue;
    // On a result channel, a proxy put in place of a function's owner is judged by its handler's traps.
    const judged = typeof value === "function" || (entry.channel && part === "value" && isProxy(value));
    if (!judged || value === null || isHarnessOwn(entry, value)) continue;
    const origin = originOf(value);
    const slot = `${entry.label}.${nameOf(key)}${part === "value" ? "" : ` (${part}ter)`}`;
    if (origin.kind === "candidate")
      emit("harness-tampering", `${slot} was replaced by code under test`, {
        file: origin.file,
        line: origin.line,
      });
    else if (before && (origin.kind === "unknown" || origin.kind === "internal"))
      emit(
        "harness-tampering",
        `${slot} was replaced by a function whose author is unknown (built in, bound, or compiled from a string)`,
        null,
        true,
      );
  }
}

/** Whether a new value is one of the harness's own functions: its source text is in the loaded files of
 * the package the watched object belongs to (mocha making its globals again for every file). */
function isHarnessOwn(entry, value) {
  const root = entry.packageName === null ? undefined : packageRoots.get(entry.packageName);
  if (root === undefined || typeof value !== "function") return false;
  let text;
  try {
    text = reflectApply(functionToString, value, []);
  } catch {
    return false;
  }
  if (text.length < 24 || text.endsWith("{ [native code] }")) return false;
  return packageTexts(root).some((source) => source.includes(text));
}

const packageSources = new Map();

/** The texts of a package's files that are loaded (require.cache), read once each. */
function packageTexts(root) {
  let known = packageSources.get(root);
  if (!known) {
    known = { files: new Set(), texts: [] };
    packageSources.set(root, known);
  }
  for (const file of Object.keys(require.cache)) {
    if (!file.startsWith(root) || known.files.has(file)) continue;
    known.files.add(file);
    const text = diskText(file);
    if (text !== null) known.texts.push(text);
  }
  return known.texts;
}

// ------------------------------------------------------------------------------- the declared surface

/**
 * The surface (guard-setup.ts `harness`: the runner adapter's objects and those of the assertion
 * libraries the hidden tests import), objects `{label, from, path, keys?, inherited?, channel?}` where
 * `from` is one of
 * - {builtin, when?}: a Node built-in module (or "process"); `when: "test-child"` only in node:test's
 *   per-file children;
 * - {module, main}: a package's CommonJS file `main`, found in require.cache as soon as it has loaded
 *   (the guard sees the loader read it), before the code that uses it runs;
 * - {module} with no main, or {realm, package?}: objects of ES modules or of another realm (jest's
 *   sandbox, vitest's workers, chai 5), handed to the guard by gagar's test wrappers and reporters
 *   (`watchModule`, `watchRealm`).
 * A path element "@@name" is Symbol.for(name); "[[Prototype]]" is the object's prototype.
 */
function resolvePath(root, path) {
  let object = root;
  for (const step of path ?? []) {
    if (object === null || (typeof object !== "object" && typeof object !== "function")) return undefined;
    if (isProxy(object)) return undefined;
    if (step === "[[Prototype]]") {
      object = getPrototypeOf(object);
      continue;
    }
    const key = typeof step === "string" && step.startsWith("@@") ? Symbol.for(step.slice(2)) : step;
    const descriptor = effectiveDescriptor(object, key);
    // Data only: a getter is never called, it may be the program's own.
    if (!descriptor || !("value" in descriptor)) return undefined;
    object = descriptor.value;
  }
  return object;
}

function watchSpec(spec, root, late) {
  const object = resolvePath(root, spec.path);
  if (object === undefined) return;
  watch(spec.label, object, {
    keys: spec.keys ? new Set(spec.keys) : undefined,
    inherited: spec.inherited,
    channel: spec.channel,
    late,
    packageName: spec.from.module ?? spec.from.package ?? null,
  });
}

function watchBuiltins(moment) {
  for (const spec of SURFACE) {
    if (!spec.from?.builtin || (spec.from.when ?? "start") !== moment) continue;
    try {
      watchSpec(spec, builtinRoot(spec.from.builtin), false);
    } catch {
      // not in this version of Node
    }
  }
}

function builtinRoot(name) {
  if (name === "globalThis") return globalThis;
  if (name === "process") return process;
  // Node's own getter, before any other code ran (node:test's children write their results there).
  if (name === "process.stdout") return process.stdout;
  return require(name);
}

/** Package name → its directory (with a trailing slash), once one of its mains has loaded. */
const packageRoots = new Map();
/** `/<module>/<main>` of package specs not adopted yet → their specs. */
const pendingMains = new Map();
for (const spec of SURFACE) {
  if (!spec.from?.module || !spec.from.main) continue;
  const suffix = `/${spec.from.module}/${spec.from.main}`;
  if (!pendingMains.has(suffix)) pendingMains.set(suffix, []);
  pendingMains.get(suffix).push(spec);
}
/** Surface mains the loader has started reading → their specs, adopted once the module has loaded. */
const loading = new Map();

function rootOf(path, spec) {
  return path.slice(0, path.length - spec.from.main.length);
}

/**
 * Every read of a file: notes a surface module that starts loading, adopts those that finished, and
 * whether code under test has been loaded (by Node's loader, jest's or vite's: they all read sources).
 */
function onRead(args) {
  const path = typeof args[0] === "string" ? args[0] : null;
  if (path !== null) {
    if (!candidateSeen && /\.[cm]?[jt]sx?$/.test(path) && kindOf(path) === "candidate") candidateSeen = true;
    for (const [suffix, specs] of pendingMains)
      if (path.endsWith(suffix)) {
        pendingMains.delete(suffix);
        loading.set(path, { specs, late: candidateSeen });
      }
  }
  if (loading.size) adoptLoaded();
}

function adopt(path, specs, late) {
  const module = require.cache[path];
  packageRoots.set(specs[0].from.module, rootOf(path, specs[0]));
  for (const spec of specs) watchSpec(spec, module.exports, late);
}

function adoptLoaded() {
  for (const [path, pending] of loading) {
    if (!require.cache[path]?.loaded) continue;
    loading.delete(path);
    adopt(path, pending.specs, pending.late);
  }
}

/** Surface mains already loaded that the guard did not see read (checked at checkpoints). */
function adoptFromCache() {
  if (!pendingMains.size) return;
  for (const path of Object.keys(require.cache)) {
    for (const [suffix, specs] of pendingMains) {
      if (!path.endsWith(suffix) || !require.cache[path]?.loaded) continue;
      pendingMains.delete(suffix);
      adopt(path, specs, candidateSeen);
    }
  }
}

// ----------------------------------------------------------------------------------------- the API

function checkpoint() {
  guarded(() => {
    adoptLoaded();
    adoptFromCache();
    for (const entry of watches) checkWatch(entry);
  });
}

/**
 * What gagar's reporters and test wrappers call, in this process or in a sandboxed realm of it (jest's
 * environment copies `process`, symbols included): `checkpoint()` after a test; `watchModule(specifier,
 * exports, resolvedFile?)` with a library's exports (or ES module namespace) as the tests see it;
 * `watchRealm(globalThis)` with a test realm's global object; `watchObject(label, object, keys?)` with
 * an object that carries results (mocha's runner instance).
 */
const api = Object.freeze({
  checkpoint,
  watchModule(specifier, exports, resolved) {
    guarded(() => {
      // Where the package lives, from the file its specifier resolves to (`require.resolve`).
      const at = typeof resolved === "string" ? resolved.lastIndexOf(`/${specifier}/`) : -1;
      if (at >= 0 && !packageRoots.has(specifier))
        packageRoots.set(specifier, resolved.slice(0, at + specifier.length + 2));
      const namespace = exports?.[Symbol.toStringTag] === "Module";
      for (const spec of SURFACE) {
        if (spec.from?.module !== specifier) continue;
        const root =
          namespace && resolvePath(exports, spec.path) === undefined
            ? resolvePath(exports, ["default"])
            : exports;
        watchSpec(spec, root, candidateSeen);
      }
    });
  },
  watchRealm(global) {
    guarded(() => {
      for (const spec of SURFACE) if (spec.from?.realm) watchSpec(spec, global, candidateSeen);
    });
  },
  watchObject(label, object, keys) {
    guarded(() =>
      watch(String(label), object, {
        inherited: true,
        keys: isArray(keys) ? new Set(keys) : undefined,
        channel: true,
        late: candidateSeen,
      }),
    );
  },
});

function install() {
  for (const rel of TEST_SOURCES) {
    try {
      const stat = statSync(`${WORKSPACE}/${rel}`);
      testInodes.set(`${stat.dev}:${stat.ino}`, rel);
    } catch {
      // not in this run's workspace
    }
  }
  if (REPORT_INODE > 0) {
    try {
      const stat = fstatSync(REPORT_FD);
      if (stat.isFIFO() && stat.ino === REPORT_INODE) reportFds.add(REPORT_FD);
    } catch {
      // no fd 3 here
    }
  }
  observe(
    fs,
    "readFileSync",
    (args, wrapper) => {
      onRead(args);
      onOpen(args, wrapper);
    },
    undefined,
  );
  for (const name of ["readFile", "createReadStream", "copyFileSync", "copyFile", "cpSync", "cp"])
    observe(fs, name, onOpen);
  for (const name of ["openSync", "open"]) observe(fs, name, onOpen, afterOpen);
  for (const name of ["writeFileSync", "appendFileSync", "writeFile", "appendFile", "createWriteStream"])
    observe(fs, name, (args, wrapper) => {
      onOpen(args, wrapper, false);
      onFdWrite(args, wrapper);
    });
  for (const name of ["writeSync", "write", "writev", "writevSync"]) observe(fs, name, onFdWrite);
  for (const name of ["readFile", "open", "copyFile", "cp"]) observe(fs.promises, name, onOpen);
  for (const name of ["writeFile", "appendFile"])
    observe(fs.promises, name, (args, wrapper) => onOpen(args, wrapper, false));
  const childProcess = require("node:child_process");
  for (const name of ["spawn", "exec", "execSync", "execFile", "execFileSync", "fork"])
    observe(childProcess, name, onSpawn);
  // spawnSync returns the error of a command that could not start, made while the wrapper was running.
  observe(childProcess, "spawnSync", onSpawn, (_args, result) => hideGuardFrames(result?.error));
  observe(require("node:async_hooks"), "executionAsyncResource", onAsyncResource);
  require("node:module").syncBuiltinESMExports();
  watchBuiltins("start");
  if (typeof process.env.NODE_TEST_CONTEXT === "string") watchBuiltins("test-child");
  defineProperty(process, API_KEY, { value: api, enumerable: false, configurable: false, writable: false });
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
