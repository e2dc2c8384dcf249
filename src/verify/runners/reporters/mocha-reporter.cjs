"use strict";
// gagar's mocha reporter: mocha's own xunit reporter names no file, so ids could not say which file a
// test is in. Each test and each failing hook becomes a testcase with its file (relative to the working
// directory) and its title path; the report goes to the verifier's channel when the run ends. It also
// hands mocha's runner and globals to gagar's guard and asks it to check the harness between tests
// (guards/node-guard.cjs), when the run has one.
const path = require("node:path");
const { writeJunit } = require("./junit-writer.cjs");

function relative(file) {
  return file ? path.relative(process.cwd(), file).split(path.sep).join("/") : "";
}

// The title path from the root suite down (Runnable#titlePath exists from mocha 4 on; walk for older ones).
function titles(runnable) {
  const path = [];
  for (let node = runnable; node; node = node.parent) if (node.title) path.unshift(node.title);
  return path;
}

function message(err) {
  if (!err) return "";
  return `${err.message || ""}\n${err.stack || ""}`;
}

class GagarMochaReporter {
  constructor(runner) {
    const cases = [];
    const add = (test, status, err) =>
      cases.push({
        file: relative(test.file || test.parent?.file),
        titles: titles(test),
        status,
        message: message(err),
        timeSec: (test.duration || 0) / 1000,
      });
    runner.on("pass", (test) => add(test, "passed"));
    runner.on("pending", (test) => add(test, "skipped"));
    runner.on("fail", (test, err) => add(test, test.type === "hook" ? "error" : "failed", err));
    runner.once("end", () => writeJunit(cases));
    const guard = process[Symbol.for("gagar.guard")];
    if (guard) {
      // Made after mocha loaded the test files, and the code under test with them: judged at once.
      guard.watchRealm(globalThis, true);
      guard.watchObject("mocha's runner", runner, undefined, "mocha", true);
      // A test's start comes after the previous test's afterEach hooks: the tests' own stubs are undone.
      for (const event of ["test", "end"]) runner.on(event, () => guard.checkpoint());
      runner.on("test", (test) => guard.checkTest(titles(test).join(" > "), test.fn, test.file));
    }
  }
}

module.exports = GagarMochaReporter;
