"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): the packages the hidden tests import that no one
// declared (harness-surfaces.ts `{imported, by}`: a request tester, a mocking library, a helper
// package), watched once the program has loaded them. Nothing says what such a package is to the tests,
// and honest code patches what its tests import (an instrumentation library), so node-guard-watches.cjs
// calls a function of code under test found in their slots ambiguous.
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ownKeys = Reflect.ownKeys;
const path = require("node:path");

/** Objects watched per imported package at most: its exports, its classes' prototypes, its objects. */
const IMPORTED_OBJECTS = 64;

/** `surface`: the run's surface; `watch(label, object, options)`: node-guard-watches.cjs's. */
module.exports = function importedPackages({ surface, watch }) {
  /** Not adopted yet, and where each resolves to (null: nowhere, or not into a node_modules folder). */
  const pending = surface.filter((spec) => spec.from?.imported && spec.from.by);
  const files = new Map();

  /**
   * Adopts those the program has loaded through require (never loading one): each is resolved once
   * from the importing module's folder; one that resolves into the workspace's own code is left out.
   * `late`: code under test may have run, so what the slots hold now is judged at once.
   */
  function adopt(late) {
    for (let i = pending.length - 1; i >= 0; i--) {
      const spec = pending[i];
      if (!files.has(spec)) files.set(spec, resolveImport(spec.from));
      const file = files.get(spec);
      const module = file ? require.cache[file] : undefined;
      if (file !== null && !module?.loaded) continue;
      pending.splice(i, 1);
      if (module) watchPackage(spec.label, module.exports, late);
    }
  }

  /** Its exports, the prototypes of the classes it exports and the objects it exports. */
  function watchPackage(label, exports, late) {
    const options = { ambiguous: true, late };
    let left = IMPORTED_OBJECTS;
    const add = (name, object) => {
      if (left-- > 0) watch(name, object, options);
    };
    add(label, exports);
    if (typeof exports === "function") add(`${label}.prototype`, exports.prototype);
    if ((typeof exports !== "object" && typeof exports !== "function") || exports === null) return;
    for (const key of ownKeys(exports)) {
      const d = getOwnPropertyDescriptor(exports, key);
      const value = d && "value" in d ? d.value : undefined;
      const name = `${label}.${typeof key === "symbol" ? `[${key.description}]` : key}`;
      if (typeof value === "function" && typeof value.prototype === "object")
        add(`${name}.prototype`, value.prototype);
      else if (typeof value === "object" && value !== null && !Array.isArray(value)) add(name, value);
    }
  }

  return { adopt: (late) => pending.length && adopt(late) };
};

/** The file a package specifier resolves to from the module that imports it, or null (not a package's). */
function resolveImport(from) {
  try {
    const resolved = require.resolve(from.imported, { paths: [path.dirname(path.resolve(from.by))] });
    return resolved.includes("/node_modules/") ? resolved : null;
  } catch {
    return null;
  }
}
