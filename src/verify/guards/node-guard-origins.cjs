"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): where a function was defined, asked of V8 through the
// inspector protocol (a session of the process's own, connected on first need). Only a function the
// guard has seen put in place of a harness function is asked about, so the cost is paid when something
// changed.
const defineProperty = Object.defineProperty;
const stringify = JSON.stringify;
const reflectApply = Reflect.apply;
const functionToString = Function.prototype.toString;

/** `code`: node-guard-code.cjs (kindOf, sourcePosition). */
module.exports = function originFinder({ code }) {
  const { kindOf, sourcePosition } = code;
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

  const known = new WeakMap();

  /**
   * Where a function (or an object standing for one: a Proxy) was defined: { kind, file, line }, `kind`
   * as kindOf says, or "unknown" (built in, bound to one, compiled from a string whose closures say
   * nothing, or no inspector). Bound functions are judged by their target, proxies by their handler's
   * traps, code compiled from a string by the functions it closes over.
   */
  function originOf(value) {
    if ((typeof value !== "function" && typeof value !== "object") || value === null)
      return { kind: "unknown" };
    if (known.has(value)) return known.get(value);
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
    known.set(value, origin);
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
      if (level > 1) return { kind: "unknown" };
      const judged = strongest(closureOrigins(internals, level));
      return judged.kind === "unknown" ? judged : { ...judged, compiled: true };
    }
    if (kind !== "candidate") return { kind, file: url };
    // A function's source text: its own, or as the inspector describes one reached through a closure.
    let text = typeof object.description === "string" ? object.description : "";
    try {
      if (value) text = reflectApply(functionToString, value, []);
    } catch {
      text = "";
    }
    const position = sourcePosition(url, location.lineNumber + 1, location.columnNumber + 1, text || null);
    if (!text) delete position.line;
    return { kind, ...position };
  }

  /** Origins of the functions a function closes over (its scopes below the global ones). */
  function closureOrigins(internals, level) {
    const scopes = internals["[[Scopes]]"];
    if (!scopes?.objectId) return [];
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
    return found;
  }

  /**
   * A function of code under test that a harness's own function (or proxy) wraps: what a library's API
   * for replacing its methods (chai's overwriteMethod) leaves in a slot. Its own closures, and for a proxy
   * its target's, one level down.
   */
  function wrappedCandidate(value) {
    if (!inspectorSession()) return null;
    try {
      let internals = internalsOf(remote(value).objectId);
      if (internals["[[Target]]"]?.objectId) internals = internalsOf(internals["[[Target]]"].objectId);
      return closureOrigins(internals, 1).find((o) => o.kind === "candidate") ?? null;
    } catch {
      return null;
    } finally {
      try {
        post("Runtime.releaseObjectGroup", { objectGroup: "gagar" });
      } catch {
        // the session is gone
      }
    }
  }

  /** Of several origins, the one that decides: code under test, then unknown, then anything else. */
  function strongest(origins) {
    return (
      origins.find((o) => o.kind === "candidate") ??
      origins.find((o) => o.kind === "unknown") ??
      origins[0] ?? { kind: "unknown" }
    );
  }

  return { originOf, wrappedCandidate };
};
