"use strict";
// Shared by gagar's reporter modules (jest, mocha): JUnit XML written once, to the report channel.
// The verifier binds these files read-only under /gagar/support; they run inside the test process.
const fs = require("node:fs");

// Taken when the reporter loads, before the code under test does: it may replace fs's functions later.
const { writeSync, openSync, statSync, readFileSync } = fs;

const REPORT_FD = 3;

/** XML 1.0 cannot carry most control characters, even escaped: they are dropped. */
function xmlText(text) {
  let clean = "";
  for (const ch of String(text)) {
    const code = ch.codePointAt(0);
    if (code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) clean += ch;
  }
  return clean.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** cases: [{file, titles: string[], status: passed|failed|error|skipped, message, timeSec}] */
function writeJunit(cases) {
  const rows = cases.map((c) => {
    const attrs = `classname="${xmlText(c.file)}" name="${xmlText(c.titles.join(" > "))}" file="${xmlText(c.file)}" time="${(c.timeSec || 0).toFixed(3)}"`;
    const message = xmlText(String(c.message || "").slice(0, 4000));
    if (c.status === "passed") return `<testcase ${attrs}/>`;
    if (c.status === "skipped") return `<testcase ${attrs}><skipped message="${message}"/></testcase>`;
    const tag = c.status === "error" ? "error" : "failure";
    return `<testcase ${attrs}><${tag} message="${message}"/></testcase>`;
  });
  const xml = `<?xml version="1.0" encoding="utf-8"?>\n<testsuites><testsuite name="gagar">${rows.join("")}</testsuite></testsuites>\n`;
  const data = Buffer.from(xml, "utf8");
  const fd = reportChannel();
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset);
}

/**
 * The report pipe: fd 3 of this process, or of the nearest ancestor that holds it when a launcher
 * started the framework without passing fd 3 on (mocha before 8 runs its tests in a child, `_mocha`,
 * whose own fd 3 is then one of Node's internal descriptors: only a pipe is the channel).
 */
function reportChannel() {
  if (isPipe(`/proc/self/fd/${REPORT_FD}`)) return REPORT_FD;
  for (let pid = process.ppid; pid > 1; pid = parentOf(pid)) {
    const path = `/proc/${pid}/fd/${REPORT_FD}`;
    if (isPipe(path)) return openSync(path, "w");
  }
  throw new Error("gagar reporter: no report channel (a pipe on fd 3) in this process or its parents");
}

function isPipe(path) {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

function parentOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

module.exports = { writeJunit };
