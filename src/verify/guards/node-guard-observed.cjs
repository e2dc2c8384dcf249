"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): wrappers that let the guard see calls of a function
// (fs, child_process) while the program sees the function it had: same `this`, arguments, result and
// exceptions, same name, length and own properties, and errors thrown through one without the
// wrapper's frame in their stack.
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ownKeys = Reflect.ownKeys;
const hasOwn = Object.hasOwn;
const reflectApply = Reflect.apply;
const reflectConstruct = Reflect.construct;
const errorToString = Error.prototype.toString;
const isArray = Array.isArray;
const PROMISIFY_CUSTOM = Symbol.for("nodejs.util.promisify.custom");

/** `guardFiles`: the guard's module files, whose frames are taken out of errors' stacks. */
module.exports = function observer({ guardFiles }) {
  /**
   * Errors thrown (or returned: spawnSync's) through an observing wrapper: the guard's frames are taken
   * out of the stack, formatted as the program's formatter would (its `Error.prepareStackTrace`, or
   * Node's). The wrapper raises `Error.stackTraceLimit` by one for the call, so the trace keeps as many
   * frames as without it.
   */
  function hideGuardFrames(error) {
    if (typeof error !== "object" || error === null || !hasOwn(error, "stack")) return;
    const descriptor = getOwnPropertyDescriptor(Error, "prepareStackTrace");
    if (descriptor && !("value" in descriptor)) return;
    const formatter = Error.prepareStackTrace;
    if (typeof formatter !== "function" && process.sourceMapsEnabled) return;
    try {
      Error.prepareStackTrace = function (err, sites) {
        const kept =
          err === error && isArray(sites) ? sites.filter((s) => !guardFiles.has(s.getFileName())) : sites;
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
      // Formatted before it reached the wrapper: its lines naming the guard go.
      if (typeof stack === "string" && [...guardFiles].some((f) => stack.includes(f))) {
        const own = getOwnPropertyDescriptor(error, "stack");
        if (own && "value" in own && own.writable)
          error.stack = stack
            .split("\n")
            .filter(
              (line) => ![...guardFiles].some((f) => line.includes(`(${f}:`) || line.includes(`at ${f}:`)),
            )
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
   * A wrapper of `original` that calls `check(args, wrapper)` first (only for the outermost observed
   * call: Node's own functions call each other) and `after(args, result)` on return; a
   * `util.promisify.custom` of the original is observed too.
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

  /** Replaces `target[name]` by its observed wrapper, with the same property attributes. */
  function observe(target, name, check, after) {
    const descriptor = target && getOwnPropertyDescriptor(target, name);
    if (!descriptor || typeof descriptor.value !== "function") return;
    defineProperty(target, name, { ...descriptor, value: observed(descriptor.value, check, after) });
  }

  return { observe, hideGuardFrames };
};
