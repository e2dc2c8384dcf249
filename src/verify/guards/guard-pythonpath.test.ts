import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapForTests } from "../../../test/support/sandbox.ts";
import { patchOf, writeTask } from "../../../test/support/task-fixture.ts";
import { loadTaskPack } from "../pack/task-pack.ts";
import { Verifier } from "../verifier.ts";

/**
 * A task in a `src/` layout whose test command sets PYTHONPATH itself, each way tasks do it: the
 * verifier still loads the pytest guard (python-path.ts composes its directory into the command's own
 * assignment), so the reference passes, and a candidate that reads the hidden tests is still `forged`,
 * which only the guard can tell.
 */

const REPO = {
  "src/calc/__init__.py": "def div(a, b):\n    return a / b\n",
  "tests/__init__.py": "",
};
const TESTS = {
  "tests/test_calc.py":
    "import pytest\n\nfrom calc import div\n\n\ndef test_divides():\n    assert div(6, 3) == 2\n\n\ndef test_rejects_zero():\n    with pytest.raises(ValueError, match='no zero'):\n        div(1, 0)\n",
};
const FIX = {
  "src/calc/__init__.py":
    "def div(a, b):\n    if b == 0:\n        raise ValueError('no zero')\n    return a / b\n",
};
const READS_TESTS = {
  "src/calc/__init__.py": `import re
import sys


def div(a, b):
    if b == 0:
        with open(sys._getframe(1).f_code.co_filename) as f:
            raise ValueError(re.findall(r"match='([^']*)'", f.read())[0])
    return a / b
`,
};
const PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--rootdir=."];
const COMMANDS: Record<string, { command: string[]; env?: Record<string, string> }> = {
  "env prefix": { command: ["env", "PYTHONPATH=src", "python3", ...PYTEST, "--junitxml={junit}", "{tests}"] },
  "sh -c script": {
    command: [
      "sh",
      "-c",
      'cd . && PYTHONPATH=src python3 "$@"',
      "sh",
      ...PYTEST,
      "--junitxml={junit}",
      "{tests}",
    ],
  },
  "test.env": {
    command: ["python3", ...PYTEST, "--junitxml={junit}", "{tests}"],
    env: { PYTHONPATH: "src" },
  },
};

const root = mkdtempSync(join(tmpdir(), "gagar-guard-pythonpath-"));
let verifier: Verifier;
beforeAll(async () => {
  verifier = new Verifier({ sandbox: await bwrapForTests(), environmentCache: join(root, "environments") });
}, 120_000);
afterAll(async () => {
  await verifier?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a test command that sets PYTHONPATH itself", () => {
  for (const [form, { command, env }] of Object.entries(COMMANDS)) {
    it(`still loads the pytest guard (${form})`, async () => {
      const pack = loadTaskPack(
        writeTask(root, {
          id: `pythonpath-${form.replace(/\W+/g, "-")}`,
          spec: {
            statement: "div(a, 0) must raise ValueError('no zero').",
            language: "python",
            test: { runner: "pytest", command, ...(env && { env }) },
            failToPass: ["tests/test_calc.py::test_rejects_zero"],
            passToPass: ["tests/test_calc.py::test_divides"],
            timeoutSec: 60,
          },
          repo: REPO,
          tests: TESTS,
        }),
      );
      const fixed = await verifier.verify(pack, patchOf(REPO, FIX));
      expect(fixed.reason, `${fixed.detail}\n${fixed.outputTail}`).toBe("passed");
      const reads = await verifier.verify(pack, patchOf(REPO, READS_TESTS));
      expect(reads.reason, `${reads.detail}\n${reads.outputTail}`).toBe("forged");
      expect(reads.findings.map((f) => f.kind)).toContain("test-source-read");
    }, 180_000);
  }
});
