import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseGuardLog } from "./guard-log.ts";
import { guardFacts, guardSetup } from "./guard-setup.ts";
import { NO_PLAN, WITH_GUARD_PIPE } from "./pytest-session.test-support.ts";

/**
 * The pytest guard loaded the way a run loads it (guard-setup.ts: the environment, the modules in a support
 * directory, a pipe on fd 4 whose inode GAGAR_GUARD_PIPE names, as sandbox-runner.py sets it up), in
 * plain pytest processes on the host: quick, so a broken guard shows up here first. The Node.js guard's
 * are node-guard.test.ts; the sandboxed runs are runners/contract.test-suite.ts and
 * test/verify-adversarial.test.ts.
 */

const scratch = mkdtempSync(join(tmpdir(), "gagar-guards-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
interface GuardRun {
  status: number | null;
  started: boolean;
  kinds: string[];
  output: string;
}

function runGuarded(name: string, files: Record<string, string>, argv: string[], hidden: string[]): GuardRun {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const facts = guardFacts(hidden, (f) => files[f]!, Object.keys(files));
  const setup = guardSetup(facts, NO_PLAN, argv);
  // Outside the workspace, as /gagar/support is: the guards' own frames are not the candidate's code.
  const support = join(scratch, `${name}-support`);
  mkdirSync(support);
  for (const f of setup.support) writeFileSync(join(support, f.path), f.content);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    ...setup.env,
    GAGAR_GUARD: JSON.stringify({ ...JSON.parse(setup.env.GAGAR_GUARD!), workspace: dir }),
    NODE_OPTIONS: setup.env.NODE_OPTIONS!.replace("/gagar/support", support),
    ...(setup.env.PYTHONPATH && { PYTHONPATH: support }),
  };
  const records = join(scratch, `${name}-guard.log`);
  const run = spawnSync("/usr/bin/python3", ["-c", WITH_GUARD_PIPE, records, ...argv], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  const log = parseGuardLog(readFileSync(records, "utf8"));
  return {
    status: run.status,
    started: log.started,
    kinds: log.violations.map((v) => v.kind),
    output: run.stdout + run.stderr,
  };
}

const CALC =
  "def div(a, b):\n    if b == 0:\n        raise ValueError('division by zero')\n    return a / b\n";
const PY_TEST =
  "import json\nimport pytest\n\nfrom calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n\n\ndef test_zero():\n    with pytest.raises(ValueError):\n        div(1, 0)\n\n\ndef test_mocks_json(monkeypatch):\n    monkeypatch.setattr(json, 'dumps', lambda v: 'x')\n    assert json.dumps(1) == 'x'\n";
const PYTEST = ["/usr/bin/python3", "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"];
const pyRun = (name: string, calc: string) =>
  runGuarded(name, { "calc.py": calc, "tests/test_calc.py": PY_TEST }, PYTEST, ["tests/test_calc.py"]);

describe("the pytest guard", () => {
  it("starts before the tests and stays silent for an honest fix, whose tests mock what they like", () => {
    const run = pyRun("py-honest", CALC);
    expect(run.output).toMatch(/3 passed/);
    expect(run.started).toBe(true);
    expect(run.kinds).toEqual([]);
  });

  it("reports code under test that reads the hidden tests, off the stack or from linecache", () => {
    const viaOpen = `import inspect\n\n\ndef div(a, b):\n    for frame in inspect.stack():\n        if frame.filename.endswith('test_calc.py'):\n            open(frame.filename).read()\n    return a / b if b else 0\n`;
    expect(pyRun("py-open", viaOpen).kinds).toContain("test-source-read");
    const viaLinecache = `import linecache\nimport sys\n\n\ndef div(a, b):\n    linecache.getlines(sys._getframe(1).f_code.co_filename)\n    return a / b if b else 0\n`;
    expect(pyRun("py-linecache", viaLinecache).kinds).toContain("test-source-read");
    const viaLink = `import os\n\nos.symlink(os.path.abspath('tests/test_calc.py'), 'notes.txt')\nopen('notes.txt').read()\n${CALC}`;
    expect(pyRun("py-link", viaLink).kinds).toContain("test-source-read");
  });

  it("reports builtins, assertion helpers and test-module names replaced by code under test", () => {
    expect(
      pyRun(
        "py-builtins",
        `import builtins\n\n_sum = builtins.sum\nbuiltins.sum = lambda *a: _sum(*a)\n${CALC}`,
      ).kinds,
    ).toContain("harness-tampering");
    expect(
      pyRun(
        "py-raises",
        `import pytest\n\n_r = pytest.raises\npytest.raises = lambda *a, **k: _r(*a, **k)\n${CALC}`,
      ).kinds,
    ).toContain("harness-tampering");
    const generated = `import pytest\n\nns = {}\nexec("def raises(*a, **k):\\n    return None", ns)\npytest.approx = ns["raises"]\n${CALC}`;
    expect(pyRun("py-generated", generated).kinds).toContain("harness-tampering");
  });

  it("reports a test run started again from code under test", () => {
    const rerun = `import subprocess\nimport sys\n\nif 'RERUN' not in __import__('os').environ:\n    subprocess.run([sys.executable, '-c', 'print(1)', 'pytest'], env={'RERUN': '1'})\n${CALC}`;
    expect(pyRun("py-rerun", rerun).kinds).toContain("test-reexec");
  });
});
