"use strict";
// gagar behavioural probes: the observation helper every generated JavaScript probe module loads
// (src/probe/js/render.ts) and finds as the global __gagarProbe. Each probe is a copy of a test whose
// assertions record what they check instead of failing: one JSON line per observation, appended to the
// file GAGAR_PROBE_CHANNEL names (a pipe or a file the runner of the probes reads). docs/probes.md
// describes the records; src/probe/channel.ts reads them. Node's standard library only; it runs under
// node:test, mocha, jest (in its module sandbox) and vitest alike.
const fs = require("node:fs");
const util = require("node:util");
const crypto = require("node:crypto");
const nodeAssert = require("node:assert");

const path = process.env.GAGAR_PROBE_CHANNEL;
if (!path)
  throw new Error("gagar probe module run without GAGAR_PROBE_CHANNEL (the file observations go to)");
const writeSync = fs.writeSync;
const openSync = fs.openSync;
const stringify = JSON.stringify;
const isDeepStrictEqual = util.isDeepStrictEqual;
const objectToString = Object.prototype.toString;
const getPrototypeOf = Object.getPrototypeOf;
const keysOf = Object.keys;
const MAX_ITEMS = 200;
const MAX_TEXT = 2000;
const MAX_DEPTH = 8;
const MAX_RECORD = 8000;
// An assertion in a loop of thousands: its first observations say enough, and recording them all would
// cost more than the test. Later ones are still evaluated (they may have side effects).
const MAX_OCCURRENCES = 50;
let fd = null;

/** JSON with object keys sorted: the same text for equal values in every run. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${keysOf(value)
      .sort()
      .map((k) => `${stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  return stringify(value);
}

function sha(text) {
  return crypto.createHash("sha256").update(text).digest("hex");
}

function text(tag, s) {
  const out = { t: tag, v: s.slice(0, MAX_TEXT) };
  if (s.length > MAX_TEXT) {
    out.len = s.length;
    out.sha = sha(s);
  }
  return out;
}

function className(x) {
  const proto = getPrototypeOf(x);
  if (proto === null) return null;
  const ctor = proto.constructor;
  return typeof ctor === "function" ? ctor.name || "?" : "?";
}

/** A JSON value with a type tag (docs/probes.md): stable across runs, processes and realms. */
function ser(x, depth = 0, seen = new Set()) {
  if (depth > MAX_DEPTH) return { t: "deep" };
  const type = typeof x;
  if (x === undefined) return { t: "undefined" };
  if (x === null) return { t: "null" };
  if (type === "boolean") return { t: "bool", v: x };
  if (type === "number") return { t: "num", v: Object.is(x, -0) ? "-0" : String(x) };
  if (type === "bigint") return { t: "bigint", v: String(x) };
  if (type === "string") return text("str", x);
  if (type === "symbol") return { t: "symbol", v: x.description ?? "" };
  if (seen.has(x)) return { t: "cycle" };
  seen.add(x);
  try {
    if (type === "function") {
      if (x.mock && Array.isArray(x.mock.calls)) return { t: "mock", v: ser(x.mock.calls, depth + 1, seen) };
      return { t: "function", v: x.name || "" };
    }
    const tag = objectToString.call(x);
    if (Array.isArray(x)) {
      const out = { t: "list", v: x.slice(0, MAX_ITEMS).map((e) => ser(e, depth + 1, seen)) };
      if (x.length > MAX_ITEMS) out.len = x.length;
      return out;
    }
    if (tag === "[object Date]")
      return { t: "date", v: Number.isNaN(x.getTime()) ? "Invalid Date" : x.toISOString() };
    if (tag === "[object RegExp]") return { t: "regexp", v: String(x) };
    if (tag === "[object Map]") {
      const entries = [...x.entries()]
        .slice(0, MAX_ITEMS)
        .map(([k, v]) => [ser(k, depth + 1, seen), ser(v, depth + 1, seen)]);
      entries.sort((a, b) => (canonical(a[0]) < canonical(b[0]) ? -1 : 1));
      return { t: "dict", v: entries };
    }
    if (tag === "[object Set]") {
      const values = [...x].slice(0, MAX_ITEMS).map((e) => ser(e, depth + 1, seen));
      values.sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1));
      return { t: "set", v: values };
    }
    if (tag === "[object Error]")
      return { t: "error", type: String(x.name), message: String(x.message).slice(0, 300) };
    if (ArrayBuffer.isView(x))
      return text("bytes", Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString("hex"));
    if (tag === "[object ArrayBuffer]") return text("bytes", Buffer.from(x).toString("hex"));
    if (tag === "[object Promise]" || typeof x.then === "function") return { t: "promise" };
    if (tag === "[object Number]" || tag === "[object String]" || tag === "[object Boolean]")
      return ser(x.valueOf(), depth + 1, seen);
    const cls = className(x);
    const keys = keysOf(x).sort();
    if (keys.length === 0 && cls !== "Object" && cls !== null) {
      // Instances that keep their state out of sight (URL, class fields behind getters): their own text.
      if (typeof x.toJSON === "function")
        return { t: "object", class: cls, v: ser(x.toJSON(), depth + 1, seen) };
      if (typeof x.toString === "function" && x.toString !== Object.prototype.toString)
        return { t: "repr", class: cls, v: String(x).slice(0, MAX_TEXT) };
    }
    const fields = {};
    for (const k of keys.slice(0, MAX_ITEMS)) fields[k] = ser(x[k], depth + 1, seen);
    return { t: "object", class: cls, v: fields };
  } catch (e) {
    return { t: "unserialisable", error: e && typeof e === "object" ? String(e.name) : typeof e };
  } finally {
    seen.delete(x);
  }
}

function raised(e) {
  if (e !== null && typeof e === "object")
    return {
      t: "raised",
      type: String(e.name ?? className(e) ?? "?"),
      message: String(e.message ?? "").slice(0, 300),
    };
  return { t: "raised", type: typeof e, message: String(e).slice(0, 300) };
}

function emit(record) {
  record.gp = 1;
  let line = canonical(record);
  if (line.length > MAX_RECORD) {
    for (const field of ["v", "e"]) {
      if (field in record && canonical(record[field]).length > MAX_RECORD / 4) {
        const body = canonical(record[field]);
        record[field] = { t: "digest", sha: sha(body), head: body.slice(0, 300) };
      }
    }
    line = canonical(record);
  }
  if (fd === null) fd = openSync(channelPath(), "a");
  writeSync(fd, `${line}\n`);
}

function isPipe(candidate, inode) {
  try {
    const stat = fs.statSync(candidate);
    return stat.isFIFO() && stat.ino === inode;
  } catch {
    return false;
  }
}

/**
 * In gagar's sandbox the channel is `/proc/self/fd/N`, a pipe only the trusted runner reads, whose inode
 * it names in GAGAR_GUARD_PIPE; a process that did not inherit the pipe (node:test's per-file children,
 * jest's workers) finds it in an ancestor. Any other path is a file.
 */
function channelPath() {
  const match = /^\/proc\/self\/fd\/(\d+)$/.exec(path);
  const inode = Number(process.env.GAGAR_GUARD_PIPE) || -1;
  if (!match || inode < 0 || isPipe(path, inode)) return path;
  for (let pid = process.ppid; pid > 1; ) {
    const candidate = `/proc/${pid}/fd/${match[1]}`;
    if (isPipe(candidate, inode)) return candidate;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break;
    }
  }
  return path;
}

/** Per probe: how many times its test started (`.each` rows), and per key how many observations. */
const starts = new Map();
const states = new Map();
let current = null;

function enter(probe) {
  const n = starts.get(probe) ?? 0;
  starts.set(probe, n + 1);
  const state = { probe, instance: String(n), counts: new Map() };
  states.set(probe, state);
  current = state;
  return state;
}

function end(state, error) {
  emit({ p: state.probe, i: state.instance, end: error === null ? { t: "ok" } : raised(error) });
}

/** Past MAX_OCCURRENCES observations of `key` in this run of the probe (or outside one): count, skip. */
function full(probe, key) {
  const state = probe === null ? current : states.get(probe);
  if (!state) return true;
  const n = state.counts.get(key) ?? 0;
  if (n < MAX_OCCURRENCES) return false;
  state.counts.set(key, n + 1);
  return true;
}

function record(probe, key, value, held, expected) {
  const state = probe === null ? current : states.get(probe);
  if (!state) return;
  const n = state.counts.get(key) ?? 0;
  state.counts.set(key, n + 1);
  const r = { p: state.probe, i: state.instance, k: key, n, v: value, h: held };
  if (expected !== undefined) r.e = expected;
  emit(r);
}

function attempt(thunk) {
  try {
    return { ok: true, value: thunk() };
  } catch (e) {
    return { ok: false, value: e };
  }
}

async function attemptAsync(thunk) {
  try {
    return { ok: true, value: await thunk() };
  } catch (e) {
    return { ok: false, value: e };
  }
}

function throwsNot(fn) {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

/** jest's toEqual: recursive equality that ignores undefined properties and object types. */
function plain(x, seen = new Set()) {
  if (x === null || typeof x !== "object" || seen.has(x)) return x;
  if (typeof x.asymmetricMatch === "function") throw new Error("asymmetric matcher");
  seen.add(x);
  if (Array.isArray(x)) return x.map((e) => plain(e, seen));
  const tag = objectToString.call(x);
  if (tag !== "[object Object]" && className(x) !== null && tag !== "[object Error]") return x;
  const out = {};
  for (const k of keysOf(x)) if (x[k] !== undefined) out[k] = plain(x[k], seen);
  return out;
}

const EQUAL = {
  equal: (a, b) => throwsNot(() => nodeAssert.equal(a, b)),
  notEqual: (a, b) => throwsNot(() => nodeAssert.notEqual(a, b)),
  strictEqual: (a, b) => Object.is(a, b),
  notStrictEqual: (a, b) => !Object.is(a, b),
  deepEqual: (a, b) => throwsNot(() => nodeAssert.deepEqual(a, b)),
  notDeepEqual: (a, b) => throwsNot(() => nodeAssert.notDeepEqual(a, b)),
  deepStrictEqual: (a, b) => isDeepStrictEqual(a, b),
  notDeepStrictEqual: (a, b) => !isDeepStrictEqual(a, b),
  toBe: (a, b) => Object.is(a, b),
  toEqual: (a, b) => isDeepStrictEqual(plain(a), plain(b)),
  toStrictEqual: (a, b) => isDeepStrictEqual(a, b),
  match: (a, b) => typeof a === "string" && b instanceof RegExp && new RegExp(b.source, b.flags).test(a),
  doesNotMatch: (a, b) =>
    typeof a === "string" && b instanceof RegExp && !new RegExp(b.source, b.flags).test(a),
};
const UNARY = { truthy: (v) => !!v, falsy: (v) => !v, isNullish: (v) => v === null || v === undefined };

function decide(op, a, b) {
  const negated = op.startsWith("not.");
  const test = EQUAL[negated ? op.slice(4) : op];
  if (!test) return null;
  try {
    return negated ? !test(a, b) : test(a, b);
  } catch {
    return null;
  }
}

function expectedError(error, expected) {
  if (expected === undefined) return true;
  if (typeof expected === "function" && expected.prototype !== undefined && expected.prototype !== null)
    return error instanceof expected;
  return null;
}

function observeEqual(probe, key, op, a, e) {
  if (full(probe, key)) return;
  const held = a.ok && e.ok ? decide(op, a.value, e.value) : false;
  record(probe, key, a.ok ? ser(a.value) : raised(a.value), held, e.ok ? ser(e.value) : raised(e.value));
}

function observeValue(probe, key, op, v) {
  if (full(probe, key)) return;
  const test = UNARY[op];
  const held = v.ok ? (test ? test(v.value) : null) : false;
  record(probe, key, v.ok ? ser(v.value) : raised(v.value), held);
}

function observeOperands(probe, key, op, a, b) {
  if (full(probe, key)) return;
  const held = a.ok && b.ok ? decide(op, a.value, b.value) : false;
  const values = [a.ok ? ser(a.value) : raised(a.value), b.ok ? ser(b.value) : raised(b.value)];
  record(probe, key, { t: "operands", v: values }, held);
}

function observeThrows(probe, key, fnResult, expected) {
  if (!fnResult.ok) return full(probe, key) || record(probe, key, raised(fnResult.value), false);
  const fn = fnResult.value;
  if (typeof fn !== "function")
    return full(probe, key) || record(probe, key, { t: "returned", v: ser(fn) }, false);
  let result;
  try {
    result = fn();
  } catch (e) {
    if (full(probe, key)) return;
    const wanted = attempt(expected ?? (() => undefined));
    return record(probe, key, raised(e), wanted.ok ? expectedError(e, wanted.value) : null);
  }
  if (!full(probe, key)) record(probe, key, { t: "returned", v: ser(result) }, false);
}

/** A table row whose values threw when the module was loaded: the probe records that instead. */
const BROKEN = Symbol("gagar broken row");
const brokenIn = (args) => args.find((a) => a !== null && typeof a === "object" && a[BROKEN] !== undefined);

const probe = {
  table(rows) {
    try {
      return rows();
    } catch (e) {
      return [[{ [BROKEN]: e }]];
    }
  },
  /** Wraps a test function: the same arity (mocha and node:test read it) and `this`. */
  test(id, fn) {
    const run = (self, args) => {
      const state = enter(id);
      const broken = brokenIn(args);
      if (broken) return end(state, broken[BROKEN]);
      let result;
      try {
        result = fn.apply(self, args);
      } catch (e) {
        end(state, e);
        return undefined;
      }
      if (result && typeof result.then === "function")
        return Promise.resolve(result).then(
          () => end(state, null),
          (e) => end(state, e),
        );
      end(state, null);
      return undefined;
    };
    // A `done` callback (mocha, node:test) ends the probe when called, failures included.
    const withDone = (self, args, at) => {
      const state = enter(id);
      const done = args[at];
      const wrapped = [...args];
      wrapped[at] = (error) => {
        end(state, error ?? null);
        done();
      };
      try {
        fn.apply(self, wrapped);
      } catch (e) {
        end(state, e);
        done();
      }
    };
    if (fn.length === 0)
      return function () {
        return run(this, []);
      };
    if (fn.length === 1)
      return function (a) {
        return typeof a === "function" ? withDone(this, [a], 0) : run(this, [a]);
      };
    return function (a, b) {
      return typeof b === "function" ? withDone(this, [a, b], 1) : run(this, [a, b]);
    };
  },
  check: (p, key, op, actual, expected) => observeEqual(p, key, op, attempt(actual), attempt(expected)),
  checkAsync: async (p, key, op, actual, expected) =>
    observeEqual(p, key, op, await attemptAsync(actual), await attemptAsync(expected)),
  value: (p, key, op, thunk) => observeValue(p, key, op, attempt(thunk)),
  valueAsync: async (p, key, op, thunk) => observeValue(p, key, op, await attemptAsync(thunk)),
  operands: (p, key, op, a, b) => observeOperands(p, key, op, attempt(a), attempt(b)),
  operandsAsync: async (p, key, op, a, b) =>
    observeOperands(p, key, op, await attemptAsync(a), await attemptAsync(b)),
  throws: (p, key, _op, fn, expected) => observeThrows(p, key, attempt(fn), expected),
  throwsAsync: async (p, key, _op, fn, expected) => observeThrows(p, key, await attemptAsync(fn), expected),
  /** assert.rejects / expect(...).rejects / .resolves: what the promise (or async function) settles to. */
  async settles(p, key, _op, target, expected) {
    const got = attempt(target);
    if (!got.ok) return full(p, key) || record(p, key, raised(got.value), false);
    let settled;
    try {
      const value = typeof got.value === "function" ? got.value() : got.value;
      settled = { ok: true, value: await value };
    } catch (e) {
      settled = { ok: false, value: e };
    }
    if (full(p, key)) return;
    if (settled.ok) return record(p, key, { t: "returned", v: ser(settled.value) }, false);
    const wanted = attempt(expected ?? (() => undefined));
    record(p, key, raised(settled.value), wanted.ok ? expectedError(settled.value, wanted.value) : null);
  },
};
// Loaded once per process (node:test, mocha) or once per test file (jest's module sandbox).
if (globalThis.__gagarProbe === undefined)
  Object.defineProperty(globalThis, "__gagarProbe", { value: probe, enumerable: false });
