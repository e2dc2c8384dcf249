"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): the harness objects it watches (the run's declared
// surface, harness-surfaces.ts) and what it makes of a function found in place of one of theirs.
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const getPrototypeOf = Object.getPrototypeOf;
const ownKeys = Reflect.ownKeys;
const reflectApply = Reflect.apply;
const functionToString = Function.prototype.toString;
const isProxy = require("node:util").types.isProxy;

/**
 * `surface`: the objects to watch (guard-setup.ts `harness`); `emit(kind, detail, where, ambiguous)`;
 * `code`: node-guard-code.cjs; `origins`: node-guard-origins.cjs; `importedPackages`:
 * node-guard-imports.cjs.
 */
module.exports = function harnessWatches({ surface, emit, code, origins, importedPackages }) {
  /**
   * A watched object: a label, the object, and per key the parts of its descriptor (own or inherited:
   * what `object[key]` resolves to) when the guard first saw it. `packageName` names the package it
   * belongs to, whose own functions its slots may be reassigned to (mocha's per-file globals).
   */
  const watches = [];
  const watchedObjects = new WeakSet();
  /** Whether code under test has been loaded (a workspace source file read by a module loader). */
  let candidateSeen = false;
  /**
   * Node's own methods of the classes harness objects inherit from (an EventEmitter's, a stream's), as
   * they were before any other code ran: found on a harness object later, they need no looking up.
   */
  const pristine = new WeakSet();
  for (const proto of [
    require("node:events").prototype,
    ...["Readable", "Writable", "Duplex", "Transform"].map((name) => require("node:stream")[name].prototype),
  ])
    for (const key of ownKeys(proto)) {
      const d = getOwnPropertyDescriptor(proto, key);
      for (const part of [d.value, d.get, d.set]) if (typeof part === "function") pristine.add(part);
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
      // A realm's globals are made again as the harness goes (mocha's for every file).
      churns: Boolean(options.churns),
      // A package the tests import that is not a declared harness: what replaces its functions is unclear.
      ambiguous: Boolean(options.ambiguous),
    };
    watches.push(entry);
    if (options.late) for (const [key, parts] of seen) judgeSlot(entry, key, null, parts);
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

  /** A slot whose function changed (with no `before`: a slot seen late, or that did not exist), judged by
   * where its new function was defined. */
  function judgeSlot(entry, key, before, now) {
    if (now === null) return;
    for (const part of ["value", "get", "set"]) {
      const value = now[part];
      if (before && before[part] === value) continue;
      // On a result channel, a proxy put in place of a function's owner is judged by its handler's traps.
      const judged = typeof value === "function" || (entry.channel && part === "value" && isProxy(value));
      if (!judged || value === null || pristine.has(value)) continue;
      const slot = `${entry.label}.${nameOf(key)}${part === "value" ? "" : ` (${part}ter)`}`;
      const own = isHarnessOwn(entry, value);
      const origin = own ? { kind: "package" } : origins.originOf(value);
      if (origin.kind === "package" && before && !entry.churns) {
        // The harness's own API used to put a function of code under test in place: who called the API
        // (a test installing a plugin under test, or code under test itself) is not known here.
        const inner = origins.wrappedCandidate(value);
        if (inner)
          emit(
            "harness-tampering",
            `${slot} was replaced, through the harness's own API, by a wrapper around a function of code under test`,
            { file: inner.file, line: inner.line },
            true,
          );
      } else if (origin.kind === "candidate")
        emit(
          "harness-tampering",
          `${slot} was replaced by code under test`,
          { file: origin.file, line: origin.line },
          entry.ambiguous,
        );
      // Node's own functions are Node's doing as often as not (`require("domain")` replaces
      // EventEmitter.prototype.emit): nothing. A native function, a bound one or a string compiled
      // with nothing to attribute it to: ambiguous.
      else if (before && origin.kind === "unknown")
        emit(
          "harness-tampering",
          `${slot} was replaced by a function whose author is unknown (native, bound, or compiled from a string)`,
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
      const text = code.diskText(file);
      if (text !== null) known.texts.push(text);
    }
    return known.texts;
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
      churns: Boolean(spec.from.realm),
    });
  }

  function watchBuiltins(moment) {
    for (const spec of surface) {
      if (!spec.from?.builtin || (spec.from.when ?? "start") !== moment) continue;
      try {
        watchSpec(spec, builtinRoot(spec.from.builtin), false);
      } catch {
        // not in this version of Node
      }
    }
  }

  /** Package name → its directory (with a trailing slash), once one of its mains has loaded. */
  const packageRoots = new Map();
  /** `/<module>/<main>` of package specs not adopted yet → their specs. */
  const pendingMains = new Map();
  for (const spec of surface) {
    if (!spec.from?.module || !spec.from.main) continue;
    const suffix = `/${spec.from.module}/${spec.from.main}`;
    if (!pendingMains.has(suffix)) pendingMains.set(suffix, []);
    pendingMains.get(suffix).push(spec);
  }
  /** Surface mains the loader has started reading → their specs, adopted once the module has loaded. */
  const loading = new Map();

  /**
   * Every read of a file: notes a surface module that starts loading, adopts those that finished, and
   * whether code under test has been loaded (by Node's loader, jest's or vite's: they all read sources).
   */
  function onRead(args) {
    const path = typeof args[0] === "string" ? args[0] : null;
    if (path !== null) {
      if (!candidateSeen && /\.[cm]?[jt]sx?$/.test(path) && code.kindOf(path) === "candidate")
        candidateSeen = true;
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

  /**
   * A test about to run whose function was defined in code under test: its body was replaced on the way
   * into the runner (a wrapped `it` that swallows failures). Its text in the test's own file is enough to
   * know it is the test's; only otherwise is its origin looked up.
   */
  function checkTestFunction(title, fn, file) {
    if (typeof fn !== "function") return;
    let text;
    try {
      text = reflectApply(functionToString, fn, []);
    } catch {
      return;
    }
    const source = typeof file === "string" && file ? code.diskText(file) : null;
    if (source !== null && text.length >= 8 && source.includes(text)) return;
    const origin = origins.originOf(fn);
    if (origin.kind === "candidate")
      emit(
        "harness-tampering",
        `the function of the test "${title.slice(0, 200)}" was defined in code under test`,
        {
          file: origin.file,
          line: origin.line,
        },
      );
  }

  /** A library's exports (or ES module namespace) as the tests see it; `resolved`: the file its
   * specifier resolves to, which says where the package lives. */
  function watchModule(specifier, exports, resolved, late) {
    const at = typeof resolved === "string" ? resolved.lastIndexOf(`/${specifier}/`) : -1;
    if (at >= 0 && !packageRoots.has(specifier))
      packageRoots.set(specifier, resolved.slice(0, at + specifier.length + 2));
    const namespace = exports?.[Symbol.toStringTag] === "Module";
    for (const spec of surface) {
      if (spec.from?.module !== specifier) continue;
      const root =
        namespace && resolvePath(exports, spec.path) === undefined
          ? resolvePath(exports, ["default"])
          : exports;
      watchSpec(spec, root, judgedAtOnce(late));
    }
  }

  /** A test realm's global object. */
  function watchRealm(global, late) {
    for (const spec of surface) if (spec.from?.realm) watchSpec(spec, global, judgedAtOnce(late));
  }

  /** An object of the run that carries results (mocha's runner instance): its functions, or `keys`;
   * `packageName`: the package whose own functions they are. Judged at once when `late`. */
  function watchObject(label, object, keys, packageName, late) {
    watch(String(label), object, {
      inherited: true,
      keys: Array.isArray(keys) ? new Set(keys) : undefined,
      channel: true,
      late: judgedAtOnce(late),
      packageName: typeof packageName === "string" ? packageName : null,
    });
  }

  /**
   * Whether what a wrapper or reporter hands over is judged at once: as it says (it knows whether the
   * test file, and the code under test with it, has loaded in that realm: jest's next file's realm is
   * fresh however much code under test the worker loaded before), else whether code under test loaded.
   */
  function judgedAtOnce(late) {
    return typeof late === "boolean" ? late : candidateSeen;
  }

  const imports = importedPackages({ surface, watch });

  /** Adopts what has loaded meanwhile and compares every watched slot with what it was. */
  function checkpoint() {
    adoptLoaded();
    adoptFromCache();
    imports.adopt(candidateSeen);
    for (const entry of watches) checkWatch(entry);
  }

  return {
    checkpoint,
    onRead,
    watchBuiltins,
    watchModule,
    watchRealm,
    watchObject,
    checkTestFunction,
  };
};

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

function nameOf(key) {
  return typeof key === "symbol" ? `[${key.description}]` : String(key);
}

function sameParts(a, b) {
  if (a === null || b === null) return a === b;
  return a.value === b.value && a.get === b.get && a.set === b.set;
}

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

function builtinRoot(name) {
  if (name === "globalThis") return globalThis;
  if (name === "process") return process;
  // Node's own getter, before any other code ran (node:test's children write their results there).
  if (name === "process.stdout") return process.stdout;
  return require(name);
}

function rootOf(path, spec) {
  return path.slice(0, path.length - spec.from.main.length);
}
