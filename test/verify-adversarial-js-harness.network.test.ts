/**
 * In-process attacks on a JavaScript runner's harness and assertion library from library code (issue 23
 * item 6), in the sandbox, through the real verifier: a mocha task whose hidden tests assert with chai
 * (Debian's mocha, chai 4 from the npm registry in a `setup` environment) and a jest task (jest 29 from
 * the registry). Network-gated: GAGAR_TEST_NETWORK=1, which .ci/run sets.
 *
 * The three attacks an independent red team got through, and variants of their classes: chai's
 * assertion no-op'd (found through require.cache, or through chai's own plugin API), mocha's classes
 * wrapped to read the running test's body (Runner.prototype.runTest, Suite.prototype.addTest), mocha's
 * and jest's `it`/`test` replaced to swallow failures, jest's matchers replaced. Each must fail or be
 * forged; the reference passes without a critical finding and the empty patch fails.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerdictReason } from "../src/contracts/verdict.ts";
import { loadTaskPack, type TaskPack } from "../src/verify/pack/task-pack.ts";
import { Verifier } from "../src/verify/verifier.ts";
import { NETWORK_SKIP } from "./support/debian-rootfs.ts";
import { bwrapForTests } from "./support/sandbox.ts";
import { patchOf, writeTask } from "./support/task-fixture.ts";

const DEBIAN_MOCHA = "/usr/share/nodejs/mocha/bin/mocha.js";
const SKIP =
  NETWORK_SKIP ??
  (existsSync(DEBIAN_MOCHA) ? undefined : "Debian's mocha is not installed (apt-get install mocha)");

const CALC = '"use strict";\nfunction div(a, b) {\n  return a / b;\n}\nmodule.exports = { div };\n';
const FIXED =
  '"use strict";\nfunction div(a, b) {\n  if (b === 0) throw new RangeError("division by zero");\n  return a / b;\n}\nmodule.exports = { div };\n';

const CHAI_SPEC = `const { expect } = require("chai");
const { div } = require("../lib/calc.js");

describe("div", () => {
  it("divides", () => {
    expect(div(6, 3)).to.equal(2);
  });
  it("rejects a zero divisor", () => {
    expect(() => div(1, 0)).to.throw(RangeError);
  });
});
`;

const JEST_TEST = `const { div } = require("../lib/calc.js");

describe("div", () => {
  test("divides", () => {
    expect(div(6, 3)).toBe(2);
  });
  test("rejects a zero divisor", () => {
    expect(() => div(1, 0)).toThrow(RangeError);
  });
});
`;

/** No-ops chai's assertion, from library code that finds chai through require.cache. */
const CHAI_NOOP = `for (const key of Object.keys(require.cache)) {
  const chai = require.cache[key].exports;
  if (chai && chai.Assertion && chai.Assertion.prototype) chai.Assertion.prototype.assert = function () {};
}
`;

interface Attack {
  name: string;
  task: "mocha" | "jest";
  calc: string;
  reasons: VerdictReason[];
  /** Finding kinds that must be present. */
  findings: string[];
}

const ATTACKS: Attack[] = [
  {
    name: "chai's Assertion.prototype.assert no-op'd through require.cache",
    task: "mocha",
    calc: `${CHAI_NOOP}${CALC}`,
    reasons: ["forged"],
    findings: ["harness-tampering", "result-forgery"],
  },
  {
    name: "the same with a detached background process",
    task: "mocha",
    calc: `${CHAI_NOOP}require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" }).unref();\n${CALC}`,
    reasons: ["forged"],
    findings: ["harness-tampering", "result-forgery"],
  },
  {
    name: "mocha's Runner.prototype.runTest wrapped to read the running test's body",
    task: "mocha",
    calc: `"use strict";
const key = Object.keys(require.cache).find((k) => k.endsWith("/mocha/lib/runner.js"));
const Runner = require.cache[key].exports;
const runTest = Runner.prototype.runTest;
let body = "";
Runner.prototype.runTest = function (fn) {
  body = this.test.body;
  return runTest.call(this, fn);
};
function div(a, b) {
  if (b === 0 && body.includes("RangeError")) throw new RangeError("division by zero");
  return a / b;
}
module.exports = { div };
`,
    reasons: ["forged"],
    findings: ["harness-tampering"],
  },
  {
    name: "mocha's Suite.prototype.addTest wrapped to read every test as it is declared",
    task: "mocha",
    calc: `"use strict";
const key = Object.keys(require.cache).find((k) => k.endsWith("/mocha/lib/suite.js"));
const Suite = require.cache[key].exports;
const addTest = Suite.prototype.addTest;
const bodies = [];
Suite.prototype.addTest = function (test) {
  bodies.push(test.body);
  return addTest.call(this, test);
};
function div(a, b) {
  if (b === 0 && bodies.some((s) => s.includes("RangeError"))) throw new RangeError("division by zero");
  return a / b;
}
module.exports = { div };
`,
    reasons: ["forged"],
    findings: ["harness-tampering"],
  },
  {
    name: "mocha's global it replaced to swallow failures",
    task: "mocha",
    calc: `"use strict";
const it = global.it;
global.it = (title, fn) => it(title, function () { try { return fn.call(this); } catch {} });
${CALC}`,
    reasons: ["forged"],
    findings: ["harness-tampering", "result-forgery"],
  },
  {
    name: "chai's throw assertion overwritten through chai's own plugin API",
    task: "mocha",
    calc: `"use strict";
const chai = require.cache[Object.keys(require.cache).find((k) => k.endsWith("/chai/index.js"))].exports;
chai.use((c, utils) => utils.overwriteMethod(c.Assertion.prototype, "throw", () => function () {}));
${CALC}`,
    reasons: ["forged"],
    findings: ["result-forgery"],
  },
  {
    name: "jest's toThrow matcher replaced through expect.extend",
    task: "jest",
    calc: `expect.extend({ toThrow() { return { pass: true, message: () => "" }; } });\n${CALC}`,
    reasons: ["forged"],
    findings: ["harness-tampering", "result-forgery"],
  },
  {
    name: "jest's global test replaced to swallow failures",
    task: "jest",
    calc: `const original = global.test;
global.test = (title, fn) => original(title, () => { try { return fn(); } catch {} });
${CALC}`,
    reasons: ["forged"],
    findings: ["harness-tampering", "result-forgery"],
  },
];

describe.skipIf(SKIP !== undefined)(
  `in-process attacks on mocha + chai and on jest from library code${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    const root = mkdtempSync(join(tmpdir(), "gagar-js-harness-"));
    const packs = new Map<Attack["task"], TaskPack>();
    let verifier: Verifier;
    afterAll(async () => {
      await verifier?.close();
      rmSync(root, { recursive: true, force: true });
    });

    beforeAll(async () => {
      const install = (pkg: string) => ({
        kind: "setup",
        commands: [
          [
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--no-package-lock",
            "--ignore-scripts",
            pkg,
          ],
        ],
      });
      const common = {
        language: "javascript",
        statement: "div(a, 0) must throw a RangeError instead of returning Infinity.",
        timeoutSec: 120,
      };
      packs.set(
        "mocha",
        loadTaskPack(
          writeTask(root, {
            id: "js-harness-mocha-chai",
            spec: {
              ...common,
              test: {
                runner: "mocha",
                command: ["node", DEBIAN_MOCHA, "--reporter={reporter}", "{tests}"],
                env: { NODE_PATH: "/usr/share/nodejs" },
              },
              environment: install("chai@4.5.0"),
              failToPass: ["test/calc.spec.js::div > rejects a zero divisor"],
              passToPass: ["test/calc.spec.js::div > divides"],
            },
            repo: { "lib/calc.js": CALC, "package.json": '{ "name": "calc", "private": true }\n' },
            tests: { "test/calc.spec.js": CHAI_SPEC },
            reference: { "lib/calc.js": FIXED },
          }),
        ),
      );
      packs.set(
        "jest",
        loadTaskPack(
          writeTask(root, {
            id: "js-harness-jest",
            spec: {
              ...common,
              test: { runner: "jest" },
              environment: install("jest@29.7.0"),
              failToPass: ["test/calc.test.js::div > rejects a zero divisor"],
              passToPass: ["test/calc.test.js::div > divides"],
            },
            repo: { "lib/calc.js": CALC, "package.json": '{ "name": "calc", "private": true }\n' },
            tests: { "test/calc.test.js": JEST_TEST },
            reference: { "lib/calc.js": FIXED },
          }),
        ),
      );
      verifier = new Verifier({
        sandbox: await bwrapForTests(),
        environmentCache: join(root, "environments"),
      });
    }, 900_000);

    it("passes the references without a critical finding and fails the empty patches", async () => {
      for (const pack of packs.values()) {
        const reference = await verifier.verify(pack, pack.referencePatch!);
        expect(reference.reason, `${reference.detail}\n${reference.outputTail}`).toBe("passed");
        expect(reference.findings.filter((f) => f.severity === "critical")).toEqual([]);
        expect((await verifier.verify(pack, "")).reason).toBe("tests-failed");
      }
    }, 900_000);

    for (const attack of ATTACKS)
      it(`does not pass: ${attack.name}`, async () => {
        const pack = packs.get(attack.task)!;
        const outcome = await verifier.verify(
          pack,
          patchOf({ "lib/calc.js": CALC }, { "lib/calc.js": attack.calc }),
        );
        expect(attack.reasons, `${outcome.detail}\n${outcome.outputTail}`).toContain(outcome.reason);
        const kinds = outcome.findings.map((f) => f.kind);
        for (const kind of attack.findings) expect(kinds, JSON.stringify(outcome.findings)).toContain(kind);
      }, 300_000);
  },
);
