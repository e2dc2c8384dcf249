import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Finding } from "../../contracts/finding.ts";
import { runPytestSession } from "./pytest-session.test-support.ts";

/**
 * What the pytest guard calls a violation, what it calls ambiguous and what it leaves alone, in real
 * pytest sessions: the rules of pytest_guard.py for reads of the hidden tests (who did it: the innermost
 * frame of the workspace's own code; how: a plain open or import, a whole source asked of linecache or
 * inspect, or lines fetched by the machinery that formats frames; whether the test handed the path or
 * object over), for processes and for code compiled under a test's name. Each case is one library
 * module (`lib.py`, the code under test) called by one hidden test module.
 */

const scratch = mkdtempSync(join(tmpdir(), "gagar-pytest-guard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let cases = 0;

interface Seen {
  violations: Finding[];
  ambiguous: Finding[];
  outcomes: Map<string, string>;
  output: string;
}

async function guarded(lib: string, test: string, extra: Record<string, string> = {}): Promise<Seen> {
  const dir = join(scratch, `case-${cases++}`);
  const files = { "lib.py": lib, "tests/test_lib.py": test, ...extra };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const hidden = Object.keys(files).filter((f) => f.startsWith("tests/") && f.endsWith(".py"));
  const session = await runPytestSession({
    dir,
    command: ["/usr/bin/python3", "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
    hidden,
    guard: true,
    env: { PYTHONPATH: "." },
  });
  expect(session.guard.started, session.output).toBe(true);
  return { ...session.guard, outcomes: session.outcomes, output: session.output };
}

const kinds = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.file}:${f.line}`);

describe("reads of the hidden tests by code under test", () => {
  it("are violations when it opens, imports or asks for the whole source of a test itself", async () => {
    const lib = `import importlib.util
import inspect
import linecache
import sys


def opens():
    with open(sys._getframe(1).f_code.co_filename) as f:
        return f.read()


def whole_lines():
    return linecache.getlines(sys._getframe(1).f_code.co_filename)


def frame_source():
    return inspect.getsource(sys._getframe(1))


def running_test_source():
    caller = sys._getframe(1)
    return inspect.getsource(caller.f_globals[caller.f_code.co_name])


def running_class_source(instance):
    return inspect.getsource(type(instance))


def imports():
    spec = importlib.util.spec_from_file_location("copy_of_test", sys._getframe(1).f_code.co_filename)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
`;
    const test = (call: string) => `import lib\n\n\ndef test_reads():\n    assert lib.${call}\n`;
    // A class whose method runs: its source holds the running test.
    const group =
      "import lib\n\n\nclass TestGroup:\n    def test_method(self):\n        assert lib.running_class_source(self)\n";
    const expected: [string, number][] = [
      ["opens()", 8],
      ["whole_lines()", 13],
      ["frame_source()", 17],
      ["running_test_source()", 22],
      ["imports()", 32],
    ];
    // An import also compiles the test's code under its name, which is a test-reexec of its own.
    const alsoReexec = (call: string) => (call === "imports()" ? ["test-reexec lib.py:32"] : []);
    for (const [call, line] of expected) {
      const seen = await guarded(lib, test(call), { "tests/test_group.py": group });
      // test_group.py runs first; findings are one per kind, message and file.
      expect(kinds(seen.violations), call).toEqual([
        "test-source-read lib.py:26",
        `test-source-read lib.py:${line}`,
        ...alsoReexec(call),
      ]);
    }
  }, 600_000);

  it("are violations at import time, and are pinned on the candidate's line that called the machinery", async () => {
    const lib = `import functools
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_TABLE = []
for _root, _, _names in os.walk(os.path.join(_HERE, "tests")):
    _TABLE += [functools.partial(open, os.path.join(_root, n))().read() for n in _names if n.endswith(".py")]
`;
    // Code compiled at run time is machinery of the code that compiled it (a module of its own here:
    // findings are one per kind, message and file).
    const execs = `import os


def read_in_exec():
    scope = {"path": os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests", "test_lib.py")}
    exec("with open(path) as f:\\n    text = f.read()", scope)
    return scope["text"]
`;
    const seen = await guarded(
      lib,
      "import execs\nimport lib\n\n\ndef test_table():\n    assert lib._TABLE\n\n\ndef test_exec():\n    assert execs.read_in_exec()\n",
      { "execs.py": execs },
    );
    expect(kinds(seen.violations)).toEqual(["test-source-read lib.py:7", "test-source-read execs.py:6"]);
  }, 600_000);

  it("are not evidence when the machinery that formats frames and tracebacks reads lines", async () => {
    const lib = `import inspect
import io
import linecache
import logging
import sys
import traceback
import warnings


class LibError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.where = "".join(traceback.format_stack())


def explain(error):
    return "".join(traceback.format_tb(error.__traceback__)) + repr(traceback.extract_stack()[-2].line)


def log(error):
    stream = io.StringIO()
    logger = logging.Logger("lib")
    logger.addHandler(logging.StreamHandler(stream))
    logger.error("failed", exc_info=error, stack_info=True)
    return stream.getvalue()


def warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("careful", stacklevel=2)
    return warnings.formatwarning(caught[0].message, caught[0].category, caught[0].filename, caught[0].lineno)


def callers():
    frame = sys._getframe(1)
    return [f.code_context for f in inspect.stack()], linecache.getline(frame.f_code.co_filename, frame.f_lineno)
`;
    const test = `import lib


def test_formats():
    try:
        raise lib.LibError("boom")
    except lib.LibError as error:
        assert "raise lib.LibError" in error.where + lib.explain(error)
        assert "raise lib.LibError" in lib.log(error)
    assert "lib.warn()" in lib.warn()
    assert "lib.callers()" in repr(lib.callers())
`;
    const seen = await guarded(lib, test);
    expect([...seen.outcomes.values()], seen.output).toEqual(["passed"]);
    expect(seen.violations).toEqual([]);
    expect(seen.ambiguous).toEqual([]);
  }, 600_000);

  it("are ambiguous, not violations, when the test handed the path or the object over", async () => {
    const lib = `import argparse
import inspect
import os


def parse(default):
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", type=argparse.FileType("r"), default=default)
    return parser.parse_args([]).source.read()


def source_of(function):
    return inspect.getsource(function)
`;
    const test = `import os

import lib
import scanner


def test_default_is_the_test_file():
    assert "def test_default_is_the_test_file" in lib.parse(__file__)


def test_scans_the_directory_it_is_given():
    assert "test_lib.py" in scanner.scan(os.path.dirname(os.path.abspath(__file__)))


def test_reads_the_source_of_what_it_is_given():
    assert "x * 3" in lib.source_of(lambda x: x * 3)
`;
    // Findings are one per kind, message and file: the scanner is a module of its own.
    const scanner = `import os


def scan(directory):
    return {n: open(os.path.join(directory, n)).read() for n in os.listdir(directory) if n.endswith(".py")}
`;
    const seen = await guarded(lib, test, { "scanner.py": scanner });
    expect([...seen.outcomes.values()], seen.output).toEqual(["passed", "passed", "passed"]);
    expect(seen.violations).toEqual([]);
    expect(kinds(seen.ambiguous).sort()).toEqual([
      "test-source-read lib.py:13",
      "test-source-read lib.py:9",
      "test-source-read scanner.py:5",
    ]);
    expect(seen.ambiguous.every((f) => f.severity === "major")).toBe(true);
  }, 600_000);

  it("are the tests' own when test code does the reading, whatever is further out on the stack", async () => {
    const lib = "def call(callback):\n    return callback()\n";
    const test = `import inspect
import linecache

import lib


def test_reads_itself():
    assert lib.call(lambda: open(__file__).read())
    assert lib.call(lambda: linecache.getlines(__file__))
    assert inspect.getsource(test_reads_itself)
`;
    const seen = await guarded(lib, test);
    expect(seen.violations).toEqual([]);
    expect(seen.ambiguous).toEqual([]);
  }, 600_000);
});

describe("processes and code started by code under test", () => {
  it("are violations when they run the test runner, name a hidden test or disguise code as a test", async () => {
    const lib = `import subprocess
import sys


def rerun():
    return subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "tests"], capture_output=True).returncode


def names_test():
    return subprocess.run(["cat", "tests/test_lib.py"], capture_output=True).returncode


def disguise():
    return compile("x = 1", "tests/test_lib.py", "exec")
`;
    const test =
      "import lib\n\n\ndef test_runs():\n    lib.rerun()\n    lib.names_test()\n    lib.disguise()\n";
    const seen = await guarded(lib, test);
    expect(kinds(seen.violations)).toEqual([
      "test-reexec lib.py:6",
      "test-reexec lib.py:10",
      "test-reexec lib.py:14",
    ]);
  }, 600_000);

  it("are nothing when they only pass through pytest's temporary directories or the tests' fixture files", async () => {
    const lib = `import subprocess


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True).stdout
`;
    // tool.py comes with the hidden tests but declares none: running it is not running the tests.
    const test = `import os
import sys

import lib


def test_tools(tmp_path):
    assert lib.run("ls", str(tmp_path)) == ""
    assert lib.run("sh", "tests/fixtures/tool.sh") == "tool\\n"
    assert lib.run(sys.executable, "tests/fixtures/tool.py") == "tool\\n"
`;
    const seen = await guarded(lib, test, {
      "tests/fixtures/tool.sh": "echo tool\n",
      "tests/fixtures/tool.py": 'print("tool")\n',
    });
    expect([...seen.outcomes.values()], seen.output).toEqual(["passed"]);
    expect(seen.violations).toEqual([]);
    expect(seen.ambiguous).toEqual([]);
  }, 600_000);
});

describe("replacements of what tests use", () => {
  it("are violations in the harness and assertion helpers, ambiguous elsewhere, and nothing for configuration", async () => {
    const lib = `import cmath
import json
import logging
import time


class Logger(logging.Logger):
    pass


def configure():
    logging.setLoggerClass(Logger)


def freeze():
    time.time = lambda: 0.0


def lenient_json():
    json.dumps = lambda value, **kw: "{}"


def lenient_isclose():
    cmath.isclose = lambda a, b, **kw: True
`;
    const test = (call: string) =>
      `import cmath\nimport json\nimport logging\nimport time\n\nimport lib\n\n\ndef test_it():\n    lib.${call}()\n`;
    const findings = async (call: string) => {
      const seen = await guarded(lib, test(call));
      return [
        ...seen.violations.map((f) => `critical ${f.message}`),
        ...seen.ambiguous.map((f) => `major ${f.message}`),
      ];
    };
    expect(await findings("configure")).toEqual([]);
    expect(await findings("freeze")).toEqual(["major time.time was replaced by code under test (lib.py)"]);
    // (the guard writes its records with a JSON encoder of its own, bound before any candidate code ran)
    expect(await findings("lenient_json")).toEqual([
      "critical json.dumps was replaced by code under test (lib.py)",
    ]);
    // Named like an assertion helper, in a module the tests import.
    expect(await findings("lenient_isclose")).toEqual([
      "critical cmath.isclose was replaced by code under test (lib.py)",
    ]);
  }, 600_000);
});

describe("the tests' own names", () => {
  it("may be builtin names the test imported from the code under test", async () => {
    const lib = "import builtins\n\n\ndef open(path, mode='r'):\n    return builtins.open(path, mode)\n";
    const seen = await guarded(
      lib,
      "from lib import open\n\n\ndef test_compat_open(tmp_path):\n    (tmp_path / 'f').write_text('x')\n    assert open(tmp_path / 'f').read() == 'x'\n",
    );
    expect(seen.violations).toEqual([]);
  }, 600_000);
});
