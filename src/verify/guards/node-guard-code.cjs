"use strict";
// Part of gagar's Node.js guard (node-guard.cjs): whose code a file is, who made a call (the frames of
// the current stack), and which line of the source a running position is.
const fs = require("node:fs");
const vm = require("node:vm");
const { fileURLToPath } = require("node:url");

const statSync = fs.statSync;
const readFileSync = fs.readFileSync;
const isArray = Array.isArray;

/**
 * `workspace`: the workspace's path; `testSources`: workspace-relative hidden test modules and canaries;
 * `testDirs`: their directories ("test/"); `guardFiles`: the guard's own module files.
 */
module.exports = function codeMap({ workspace, testSources, testDirs, guardFiles }) {
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
    if (!path.startsWith(`${workspace}/`)) return null;
    return path.slice(workspace.length + 1);
  }

  const kinds = new Map();

  /**
   * What wrote the code of a file: "internal" (Node itself), "guard", "candidate" (workspace code that
   * is not a test, a canary or a package), "test", "package" (node_modules, or anything outside the
   * workspace: the toolchain, gagar's own reporters), "eval" (code with no file: a string compiled at
   * run time, an eval'd worker).
   */
  function kindOf(file) {
    if (typeof file !== "string" || file === "") return "eval";
    let known = kinds.get(file);
    if (known !== undefined) return known;
    const rel = relative(file);
    if (guardFiles.has(file)) known = "guard";
    else if (file.startsWith("node:")) known = "internal";
    else if (rel === null) known = file.startsWith("/") || file.startsWith("file:") ? "package" : "eval";
    else if (`/${rel}`.includes("/node_modules/")) known = "package";
    else if (testSources.has(rel) || testDirs.some((d) => rel.startsWith(d))) known = "test";
    else known = "candidate";
    kinds.set(file, known);
    return known;
  }

  /**
   * Structured frames of the current stack, taken in a realm of the guard's own, so that the program's
   * `Error.prepareStackTrace` and `Error.stackTraceLimit` are neither called nor touched. Inside V8's
   * formatting of a stack trace (a `prepareStackTrace` running) V8 formats nested captures itself: the
   * frames are then parsed from that text, and `formatting` says so.
   */
  let captureInRealm = null;

  function currentStack() {
    captureInRealm ??= vm.runInContext(
      `(function capture(limit) {
        const holder = {};
        Error.prepareStackTrace = (_, sites) => sites;
        Error.stackTraceLimit = limit;
        Error.captureStackTrace(holder, capture);
        return holder.stack;
      })`,
      vm.createContext({}),
    );
    const raw = captureInRealm(200);
    if (!isArray(raw)) return { frames: parseStack(String(raw)), formatting: true };
    const frames = raw.map(frameOf);
    const formatting = frames.some(
      (f) => f.fn === "prepareStackTraceCallback" && f.file === "node:internal/errors",
    );
    return { frames, formatting };
  }

  /**
   * Who made the call the guard is looking at: the first frame that is neither the guard's nor Node's
   * own. `above` is the innermost frame of code under test further out (what asked a package to do
   * it); `viaLoader` says whether Node's module loader is between the call and the actor (a require).
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
    // Only callers count: the frames of async functions awaiting further out are not asking for this.
    let above = null;
    if (kind !== "candidate" && kind !== "test")
      above = frames.slice(index + 1).find((f) => !f.async && kindOf(f.file) === "candidate") ?? null;
    return { actor, kind, above, viaLoader };
  }

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
   * source through a source map Node holds, else the line itself when the text on disk there is what
   * ran (`expect` is text the code at that column starts with: the called function's name, the
   * function's own source). Code transformed in memory (coverage instrumentation, transpilers) runs
   * lines that are not the file's: the line is then left out rather than invented.
   */
  function sourcePosition(file, line, column, expect) {
    const rel = relative(file) ?? file;
    if (!line) return { file: rel };
    const mapped = throughSourceMap(file, line, column);
    if (mapped) return mapped;
    const text = diskText(file);
    if (text === null) return { file: rel };
    const at = text.split("\n")[line - 1];
    if (at === undefined) return { file: rel };
    if (expect && !textAt(at, column - 1, expect)) return { file: rel };
    return { file: rel, line };
  }

  function throughSourceMap(file, line, column) {
    try {
      const map = require("node:module").findSourceMap?.(file);
      if (!map) return null;
      const entry = map.findEntry(line - 1, column - 1);
      if (!entry || typeof entry.originalSource !== "string" || typeof entry.originalLine !== "number")
        return null;
      return { file: relative(entry.originalSource) ?? entry.originalSource, line: entry.originalLine + 1 };
    } catch {
      return null;
    }
  }

  return { relative, kindOf, currentStack, actorOf, diskText, sourcePosition };
};

function frameOf(site) {
  // Code eval'd inside a file is that file's code (its origin, which the code cannot choose).
  let file = site.getFileName() ?? "";
  if (!file && site.isEval()) file = evalOriginFile(site.getEvalOrigin()) ?? "";
  return {
    file,
    line: site.getLineNumber() || 0,
    column: site.getColumnNumber() || 0,
    fn: site.getFunctionName() || "",
    async: Boolean(site.isAsync?.()),
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
    frames.push({
      file: m[2] ?? m[5],
      line: Number(m[3] ?? m[6]),
      column: Number(m[4] ?? m[7]),
      fn: fn.split(" [as ")[0],
      async: /^\s+at async /.test(line),
    });
  }
  return frames;
}

/**
 * Whether the code at `index` of a line is `expect`: a call's callee (the line has the name there), or
 * a function's own source text (the function contains the line's text from there on).
 */
function textAt(lineText, index, expect) {
  if (index < 0 || index > lineText.length) return false;
  if (lineText.startsWith(expect.slice(0, 40), index)) return true;
  const rest = lineText.slice(index, index + Math.min(12, lineText.length - index));
  return rest.length >= 2 && expect.includes(rest);
}
