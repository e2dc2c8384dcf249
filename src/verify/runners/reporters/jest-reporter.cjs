"use strict";
// gagar's jest reporter (jest has no JUnit reporter of its own): every assertion result becomes a
// testcase with its file (relative to the working directory) and its describe path, and a test file
// that failed to run becomes an error case; the report goes to the verifier's channel at the end.
const path = require("node:path");
const { writeJunit } = require("./junit-writer.cjs");

const STATUS = {
  passed: "passed",
  failed: "failed",
  pending: "skipped",
  skipped: "skipped",
  todo: "skipped",
  disabled: "skipped",
};

class GagarJestReporter {
  onRunComplete(_contexts, results) {
    const cases = [];
    for (const suite of results.testResults || []) {
      const file = path.relative(process.cwd(), suite.testFilePath).split(path.sep).join("/");
      if (suite.testExecError || (suite.failureMessage && (suite.testResults || []).length === 0)) {
        const error = suite.testExecError;
        cases.push({
          file,
          titles: ["(test file failed to run)"],
          status: "error",
          message: error?.message || suite.failureMessage || "",
        });
      }
      for (const test of suite.testResults || []) {
        cases.push({
          file,
          titles: [...(test.ancestorTitles || []), test.title],
          status: STATUS[test.status] || "error",
          message: (test.failureMessages || []).join("\n"),
          timeSec: (test.duration || 0) / 1000,
        });
      }
    }
    writeJunit(cases);
  }
}

module.exports = GagarJestReporter;
