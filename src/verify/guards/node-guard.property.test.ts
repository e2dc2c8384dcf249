import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { runProcess } from "../../../test/support/guarded-process.ts";
import { jsHarness, NODE_TEST_HARNESS } from "../runners/harness-surfaces.ts";

/**
 * The Node.js guard only observes: a program's results, output and exceptions are the same with and
 * without it. Programs are generated from steps over Node's built-ins (streams and their subclasses,
 * the stream classes Node loads lazily, crypto's Hash/Cipher/Sign streams, fs streams and errors, zlib,
 * http on loopback, child_process, worker_threads, source maps, Error.prepareStackTrace and
 * captureStackTrace, property descriptors of what the guard observes), written as the code under test
 * of a workspace whose hidden test runs it, and run as real node processes, plainly or as a node:test
 * child, with and without `--enable-source-maps`, once without the guard and once with it preloaded
 * exactly as the verifier preloads it. stdout, stderr and the exit status must be equal, and the guard
 * must report nothing about these honest programs. GAGAR_PROPERTY_RUNS sets the number of programs.
 */

const RUNS = Number(process.env.GAGAR_PROPERTY_RUNS) || 12;
const scratch = mkdtempSync(join(tmpdir(), "gagar-guard-property-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const text = fc.string({ unit: fc.constantFrom(..."abcxyz019 -_"), minLength: 1, maxLength: 12 });
const q = (value: unknown) => JSON.stringify(value);

/** Each step is a block of the program's async main; it prints what it computed, or the error it met. */
const STEPS: fc.Arbitrary<string>[] = [
  // A stream pipeline through subclasses of Node's stream classes.
  fc.array(text, { minLength: 1, maxLength: 4 }).map(
    (chunks) => `{
  const { Writable, Readable, Transform } = require("stream");
  class Upper extends Transform { _transform(c, e, cb) { cb(null, String(c).toUpperCase()); } }
  class Collect extends Writable {
    constructor() { super(); this.parts = []; }
    _write(c, e, cb) { this.parts.push(String(c)); cb(); }
  }
  const sink = new Collect();
  await require("stream/promises").pipeline(Readable.from(${q(chunks)}), new Upper(), sink);
  print("stream", sink.parts.join("|"));
}`,
  ),
  // crypto's stream classes, which Node loads on first use: Hash, Cipher, Sign.
  fc.tuple(text, fc.constantFrom("sha256", "sha1", "md5"), fc.integer({ min: 0, max: 255 })).map(
    ([data, algorithm, seed]) => `{
  const crypto = require("crypto");
  const hash = crypto.createHash(${q(algorithm)});
  hash.write(${q(data)});
  hash.end();
  print("hash", hash.read().toString("hex"));
  const cipher = crypto.createCipheriv("aes-256-cbc", Buffer.alloc(32, ${seed}), Buffer.alloc(16, ${255 - seed}));
  const parts = [];
  cipher.on("data", (d) => parts.push(d));
  cipher.write(${q(data)});
  cipher.end();
  await new Promise((r) => cipher.on("end", r));
  print("cipher", Buffer.concat(parts).toString("hex"));
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const sign = crypto.createSign("SHA256");
  sign.write(${q(data)});
  sign.end();
  print("verified", crypto.verify("SHA256", Buffer.from(${q(data)}), publicKey, sign.sign(privateKey)));
}`,
  ),
  // fs streams, promises and sync reads of a file the program wrote.
  fc.tuple(text, fc.integer({ min: 1, max: 3 })).map(
    ([data, times]) => `{
  const fs = require("fs");
  const path = require("path").join(require("os").tmpdir(), "gagar-property-" + process.pid + ".txt");
  const out = fs.createWriteStream(path);
  for (let i = 0; i < ${times}; i++) out.write(${q(data)});
  await new Promise((r) => out.end(r));
  const chunks = [];
  for await (const c of fs.createReadStream(path, { highWaterMark: 3 })) chunks.push(String(c));
  print("fs", [chunks.join(""), await fs.promises.readFile(path, "utf8"), fs.readFileSync(path, "utf8").length]);
  fs.unlinkSync(path);
}`,
  ),
  // Errors thrown by the functions the guard observes, their stacks printed whole.
  fc
    .tuple(
      fc.integer({ min: 0, max: 14 }),
      fc.constantFrom(3, 10, 20),
      fc.constantFrom("readFileSync", "openSync", "copyFileSync", "promises"),
    )
    .map(
      ([depth, limit, call]) => `{
  const fs = require("fs");
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = ${limit};
  const missing = "/nonexistent-gagar/${call}";
  async function deep(n) {
    if (n > 0) return await deep(n - 1);
    ${call === "promises" ? "return await fs.promises.readFile(missing);" : call === "copyFileSync" ? 'return fs.copyFileSync(missing, "/nonexistent-gagar/copy");' : `return fs.${call}(missing);`}
  }
  try { await deep(${depth}); } catch (e) { print("error", [e.code, e.message, e.stack]); }
  Error.stackTraceLimit = saved;
}`,
    ),
  // zlib, by stream and at once.
  fc.tuple(text, fc.constantFrom("Gzip", "Deflate", "BrotliCompress")).map(
    ([data, kind]) => `{
  const zlib = require("zlib");
  const inflate = { Gzip: "gunzipSync", Deflate: "inflateSync", BrotliCompress: "brotliDecompressSync" }[${q(kind)}];
  const packer = zlib["create" + ${q(kind)}]();
  const parts = [];
  packer.on("data", (d) => parts.push(d));
  packer.end(${q(data)}.repeat(20));
  await new Promise((r) => packer.on("end", r));
  print("zlib", [zlib[inflate](Buffer.concat(parts)).toString(), zlib.deflateSync(${q(data)}).toString("base64")]);
}`,
  ),
  // http on loopback.
  text.map(
    (body) => `{
  const http = require("http");
  const server = http.createServer((req, res) => res.end(req.url + ${q(body)}));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const got = await new Promise((resolve, reject) => {
    http.get({ host: "127.0.0.1", port: server.address().port, path: "/p" }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve([res.statusCode, data]));
    }).on("error", reject);
  });
  await new Promise((r) => server.close(r));
  print("http", got);
}`,
  ),
  // child_process, promisified with its custom form, and a command that cannot start.
  fc.integer({ min: 0, max: 1000 }).map(
    (n) => `{
  const cp = require("child_process");
  print("exec", String(cp.execFileSync(process.execPath, ["-e", "console.log(${n} * 2)"])));
  const result = await require("util").promisify(cp.exec)("echo ${n}");
  print("promisified", [typeof result, result.stdout]);
  const failed = cp.spawnSync("gagar-no-such-command-${n}");
  print("spawn error", [failed.error.code, failed.error.message, failed.error.stack]);
  try { cp.execFileSync("gagar-no-such-command-${n}"); } catch (e) { print("exec error", [e.code, e.stack]); }
}`,
  ),
  // worker_threads, eval'd.
  fc.integer({ min: 0, max: 1000 }).map(
    (n) => `{
  const { Worker } = require("worker_threads");
  const worker = new Worker("require('worker_threads').parentPort.postMessage(${n} * ${n})", { eval: true });
  print("worker", await new Promise((r) => worker.once("message", r)));
  await worker.terminate();
}`,
  ),
  // An error thrown from code that has a source map (mapped when --enable-source-maps is on).
  fc.integer({ min: 1, max: 3 }).map(
    (line) => `{
  try { require("./mapped.js").fail(${line}); } catch (e) { print("mapped", e.stack.split("\\n").slice(0, 3)); }
}`,
  ),
  // Stack traces read by the program: its own formatter, captureStackTrace, stackTraceLimit.
  fc.tuple(fc.integer({ min: 0, max: 6 }), fc.constantFrom(2, 5, 10)).map(
    ([depth, limit]) => `{
  const path = require("path");
  const saved = [Error.prepareStackTrace, Error.stackTraceLimit];
  Error.stackTraceLimit = ${limit};
  Error.prepareStackTrace = (e, sites) => sites.map((s) => [s.getFunctionName(), path.basename(s.getFileName() || ""), s.getLineNumber()].join(":")).join(",");
  function nested(n) { return n > 0 ? nested(n - 1) : new Error("x").stack; }
  const holder = {};
  Error.captureStackTrace(holder, nested);
  print("stack", [nested(${depth}), typeof holder.stack]);
  [Error.prepareStackTrace, Error.stackTraceLimit] = saved;
  print("default", new Error("plain").stack.split("\\n").length);
}`,
  ),
  // What the program sees of the objects the guard observes or watches.
  fc.constant(`{
  const fs = require("fs");
  const cp = require("child_process");
  const util = require("util");
  const { Writable } = require("stream");
  const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return x && [typeof x.value, x.writable, x.enumerable, x.configurable, typeof x.get]; };
  print("descriptors", [d(fs, "readFileSync"), fs.readFileSync.name, fs.readFileSync.length, Object.keys(fs.readFileSync),
    util.promisify.custom in cp.exec, typeof cp.exec[util.promisify.custom], d(Writable.prototype, "_write"), d(Writable.prototype, "write"),
    d(require("assert"), "strictEqual"), d(JSON, "parse"), typeof Error.prepareStackTrace, "prepareStackTrace" in Error,
    Object.keys(fs.promises).length, typeof fs.realpathSync.native]);
}`),
  // Events, assertions and JSON, as tests use them.
  fc.tuple(text, fc.integer({ min: 0, max: 5 })).map(
    ([data, n]) => `{
  const { EventEmitter } = require("events");
  const e = new EventEmitter();
  let seen = 0;
  e.on("x", () => seen++);
  for (let i = 0; i < ${n}; i++) e.emit("x");
  const assert = require("assert");
  let message = "";
  try { assert.deepStrictEqual({ a: ${q(data)} }, { a: ${q(`${data}!`)} }); } catch (err) { message = err.message; }
  print("events", [seen, message, JSON.parse(JSON.stringify({ d: ${q(data)} })).d]);
}`,
  ),
];

const MAPPED_LINES = [
  "function fail(n) {",
  '  if (n === 1) throw new Error("one");',
  '  if (n === 2) throw new Error("two");',
  '  throw new Error("three");',
  "}",
  "module.exports = { fail };",
];
const SOURCE_MAP = {
  version: 3,
  file: "mapped.js",
  sources: ["../src/mapped.ts"],
  sourcesContent: [MAPPED_LINES.map((l) => `${l} // ts`).join("\n")],
  names: [],
  mappings: MAPPED_LINES.map((_, i) => (i === 0 ? "AAAA" : "AACA")).join(";"),
};
const MAPPED = `${MAPPED_LINES.join("\n")}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(SOURCE_MAP)).toString("base64")}\n`;

function programOf(steps: string[]): string {
  return [
    '"use strict";',
    "const print = (label, value) => console.log(label, JSON.stringify(value));",
    "async function main() {",
    ...steps.map((s) => `try ${s} catch (e) { print("threw", String(e && e.stack)); }`),
    "}",
    'main().then(() => print("end", true), (e) => { print("fatal", String(e)); process.exitCode = 3; });',
    "",
  ].join("\n");
}

const HARNESS = jsHarness(NODE_TEST_HARNESS, undefined).objects;
let count = 0;

/**
 * What differs from run to run of the same program, guard or not: node:test's durations, and whether an
 * async function resumed from Node's tick queue (the `processTicksAndRejections` frame at the bottom of
 * a stack comes and goes with the order in which a child process's events arrive).
 */
function comparable(output: string): string {
  return output
    .replace(/duration_ms: [\d.]+/g, "duration_ms: *")
    .replace(/# duration_ms [\d.]+/g, "# duration_ms *")
    .replace(
      // as printed, in a JSON string, or in node:test's TAP comments (escaped once more)
      /(?:\\+n|\n)\s+at process\.processTicksAndRejections \(node:internal\/process\/task_queues:\d+:\d+\)/g,
      "",
    );
}

describe("the Node.js guard only observes", () => {
  it(`gives every generated program over Node's built-ins the same results, output and exceptions (${RUNS} programs and one per step)`, async () => {
    let passed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(...STEPS), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        async (steps, asNodeTestChild, sourceMaps) => {
          const dir = join(scratch, `p${count++}`);
          mkdirSync(join(dir, "lib"), { recursive: true });
          mkdirSync(join(dir, "test"));
          writeFileSync(join(dir, "lib", "program.js"), programOf(steps));
          writeFileSync(join(dir, "lib", "mapped.js"), MAPPED);
          const test = asNodeTestChild
            ? 'const { test } = require("node:test");\ntest("program", async () => { require("../lib/program.js"); });\n'
            : 'require("../lib/program.js");\n';
          writeFileSync(join(dir, "test", "program.test.js"), test);
          const argv = [
            process.execPath,
            ...(sourceMaps ? ["--enable-source-maps"] : []),
            ...(asNodeTestChild ? ["--test", "--test-reporter=tap"] : []),
            "test/program.test.js",
          ];
          const options = { workspace: dir, argv, hidden: ["test/program.test.js"], harness: HARNESS };
          const bare = await runProcess({ ...options, guards: false });
          const files = readdirSync(dir);
          const guarded = await runProcess({ ...options, guards: true });
          expect(readdirSync(dir)).toEqual(files);
          expect(guarded.started).toBe(true);
          expect(comparable(guarded.stdout)).toBe(comparable(bare.stdout));
          expect(comparable(guarded.stderr)).toBe(comparable(bare.stderr));
          expect(guarded.status).toBe(bare.status);
          expect(bare.stdout).toContain("end true");
          expect([...guarded.violations, ...guarded.ambiguous]).toEqual([]);
          passed++;
        },
      ),
      // Besides the random programs, one program per step, so that every step runs at least once.
      {
        numRuns: RUNS + STEPS.length,
        endOnFailure: true,
        examples: STEPS.map((step) => [fc.sample(step, 1), false, false]),
      },
    );
    expect(passed).toBeGreaterThanOrEqual(RUNS);
  }, 600_000);
});
