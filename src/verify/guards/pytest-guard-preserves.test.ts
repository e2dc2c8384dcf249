import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { runPytestSession } from "./pytest-session.test-support.ts";

/**
 * The pytest guard only observes: a program's results, output, exceptions, warnings, log records and
 * tracebacks are the same whether it is loaded or not. Property: generated test modules that drive the
 * standard library (traceback, logging, warnings, inspect, linecache, unittest.mock, doctest,
 * dataclasses, enum, functools, faulthandler) through a library module of the workspace, the code under
 * test, run in two real pytest sessions, one with the guard loaded as a verification loads it; every
 * test's outcome and everything the session prints must be equal, and the guard, which sees the library
 * format its callers' tracebacks, take their frames and read what they hand it, must not find a
 * violation in any of it.
 */

const scratch = mkdtempSync(join(tmpdir(), "gagar-guard-preserves-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The code under test: library functions that use the standard library the way real libraries do. */
const STDOPS = `"""Library code that formats tracebacks, logs, warns and inspects its callers."""
import copy
import dataclasses
import doctest
import enum
import faulthandler
import functools
import inspect
import io
import json
import linecache
import logging
import pickle
import sys
import tempfile
import traceback
import warnings


class LibError(Exception):
    """An error that records where it was raised, as many libraries' errors do."""

    def __init__(self, message):
        super().__init__(message)
        self.where = "".join(traceback.format_stack(limit=4)[:-1])


def raise_lib_error(message):
    raise LibError(message)


def stack_lines(limit):
    return [s.line for s in traceback.extract_stack(limit=limit)][-3:-1]


def format_tb(error):
    return "".join(traceback.format_tb(error.__traceback__))


def format_exception(error):
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def log_exception(error, stack_info):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(funcName)s %(lineno)d %(message)s"))
    logger = logging.Logger("stdops")
    logger.addHandler(handler)
    logger.error("failed", exc_info=error, stack_info=stack_info)
    return stream.getvalue()


def warn(message, stacklevel):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(message, UserWarning, stacklevel=stacklevel)
    return [warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught]


def show_warning(message):
    caller = sys._getframe(1)
    stream = io.StringIO()
    warnings.showwarning(message, UserWarning, caller.f_code.co_filename, caller.f_lineno, file=stream)
    return stream.getvalue()


def frame_info(context):
    return [(f.function, f.lineno, f.code_context) for f in inspect.stack(context=context)[1:3]]


def source_of(obj):
    return inspect.getsource(obj)


def caller_line():
    frame = sys._getframe(1)
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno)


def linecache_facts():
    cache = linecache.cache
    return [type(cache).__name__, type(cache) is dict, isinstance(cache, dict), type(copy.copy(cache)).__name__,
            type(pickle.loads(pickle.dumps(cache))).__name__, type(dict(cache)).__name__]


def halve(value):
    """
    >>> halve(4)
    2.0
    >>> halve(None)
    Traceback (most recent call last):
    TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'
    """
    return value / 2


def halve_wrongly(value):
    """
    >>> halve_wrongly(4)
    3
    >>> halve_wrongly("x")
    'x'
    """
    return value / 2


def run_doctest(failing):
    out = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False)
    for test in doctest.DocTestFinder().find(halve_wrongly if failing else halve):
        runner.run(test, out=out.write)
    return runner.summarize(verbose=False), out.getvalue()


@dataclasses.dataclass(order=True, frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple = ()


def points(x, y):
    p = Point(x, y, ("a",))
    return repr(p), dataclasses.asdict(p), dataclasses.replace(p, y=y + 1) > p, p == Point(x, y, ("a",))


class Color(enum.Enum):
    RED = enum.auto()
    GREEN = enum.auto()


class Perm(enum.Flag):
    R = 4
    W = 2
    X = 1


def enums(bits):
    return [repr(c) for c in Color], repr(Perm(bits & 7)), [p.name for p in Perm if p in Perm(bits & 7)]


@functools.lru_cache(maxsize=4)
def square(n):
    return n * n


@functools.singledispatch
def describe(value):
    return "object"


@describe.register
def _(value: int):
    return "int"


def funcs(n):
    for k in range(n):
        square(k % 5)
    wrapped = functools.wraps(square)(lambda n: n)
    return square.cache_info(), repr(functools.partial(max, n)), describe(n), describe("s"), wrapped.__name__


def fault_dump():
    with tempfile.TemporaryFile("w+") as f:
        faulthandler.dump_traceback(file=f, all_threads=False)
        f.seek(0)
        return [line.strip() for line in f.read().splitlines()[1:4]]


def dumps(value):
    return json.dumps(value)
`;

/** The test module's fixed part: helpers the generated tests raise through. */
const HEADER = `import builtins
import inspect
import json
import linecache
import sys
import traceback
import warnings
from unittest import mock

import stdops


def out(*values):
    print("OUT", *values)


def deep(n, message):
    if n <= 0:
        raise ValueError(message)
    deep(n - 1, message)


def caught(n, message):
    try:
        deep(n, message)
    except ValueError as error:
        return error
`;

type Op = (k: number, n: number) => string[];
const OPS: Record<string, Op> = {
  libError: (k) => [
    "try:",
    `    stdops.raise_lib_error("e${k}")`,
    "except stdops.LibError as error:",
    "    out(error.where.splitlines()[-2:])",
  ],
  stackLines: (_k, n) => [`out(stdops.stack_lines(${n + 2}))`],
  formatTb: (k, n) => [`out(stdops.format_tb(caught(${n}, "t${k}")))`],
  formatException: (k, n) => [`out(stdops.format_exception(caught(${n}, "x${k}")))`],
  logException: (k, n) => [`out(stdops.log_exception(caught(${n}, "l${k}"), ${n % 2 ? "True" : "False"}))`],
  warn: (k, n) => [`out(stdops.warn("w${k}", ${1 + (n % 3)}))`],
  showWarning: (k) => [`out(stdops.show_warning("s${k}"))`],
  frameInfo: (_k, n) => [`out(stdops.frame_info(${n % 6}))`],
  sourceOfFunction: (k) => ["def local(x):", `    return x * ${k}`, "out(stdops.source_of(local))"],
  sourceOfLambda: (k) => [`twice = lambda x: x * ${k}  # noqa: E731`, "out(stdops.source_of(twice))"],
  sourceOfClass: (k) => ["class Local:", `    value = ${k}`, "out(stdops.source_of(Local))"],
  callerLine: () => ["out(stdops.caller_line())"],
  linecacheFacts: () => ["out(stdops.linecache_facts())"],
  mockJson: (k) => [
    'with mock.patch("json.dumps", return_value="mocked"):',
    `    out(json.dumps(${k}), stdops.dumps(${k}))`,
  ],
  mockBuiltin: (k) => ['with mock.patch.object(builtins, "sum", return_value=-1):', `    out(sum([${k}]))`],
  mockLinecache: () => [
    'with mock.patch("linecache.getline", return_value="patched\\n"):',
    "    out(stdops.stack_lines(3), stdops.caller_line())",
  ],
  mockLibrary: (k) => [
    `with mock.patch.object(stdops, "caller_line", return_value="c${k}"):`,
    "    out(stdops.caller_line())",
  ],
  doctest: (_k, n) => [`out(stdops.run_doctest(${n % 2 ? "True" : "False"}))`],
  dataclasses: (k, n) => [`out(stdops.points(${k}, ${n}))`],
  enums: (k) => [`out(stdops.enums(${k}))`],
  functools: (_k, n) => [`out(stdops.funcs(${n}))`],
  faulthandler: () => ["out(stdops.fault_dump())"],
  printExc: (k, n) => [
    "try:",
    `    deep(${n}, "p${k}")`,
    "except ValueError:",
    "    traceback.print_exc(file=sys.stdout)",
  ],
  printStack: (_k, n) => [`traceback.print_stack(limit=${n + 1}, file=sys.stdout)`],
  readsOwnFile: () => ["with open(__file__) as f:", "    out(len(f.read().splitlines()))"],
  summaryWarning: (k) => [`warnings.warn("summary ${k}", UserWarning)`],
  inspectOwnLibrary: () => ["out(inspect.getsource(stdops.caller_line).splitlines()[0])"],
};
const ENDINGS: Record<string, (k: number) => string[]> = {
  pass: () => [],
  assertFails: (k) => [`assert ${k} == ${k + 1}, "differs"`],
  raises: (k) => [`deep(2, "end${k}")`],
  libErrorEscapes: (k) => [`stdops.raise_lib_error("escapes ${k}")`],
};

const opArb = fc.record({
  op: fc.constantFrom(...Object.keys(OPS)),
  k: fc.integer({ min: 0, max: 99 }),
  n: fc.integer({ min: 0, max: 5 }),
});
const testArb = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 4 }),
  ending: fc.constantFrom(...Object.keys(ENDINGS)),
  inClass: fc.boolean(),
});
const moduleArb = fc.record({
  tests: fc.array(testArb, { minLength: 1, maxLength: 8 }),
  tb: fc.constantFrom("long", "short", "native", "line"),
});

type GeneratedModule = typeof moduleArb extends fc.Arbitrary<infer T> ? T : never;

function render(module: GeneratedModule): string {
  const lines = [HEADER];
  module.tests.forEach((test, i) => {
    const indent = test.inClass ? "    " : "";
    if (test.inClass) lines.push("", "", `class TestGroup${i}:`);
    lines.push("", "", `${indent}def test_generated_${i}(${test.inClass ? "self" : ""}):`);
    const body = [...test.ops.flatMap(({ op, k, n }) => OPS[op]!(k, n)), ...ENDINGS[test.ending]!(i)];
    for (const line of body) lines.push(`${indent}    ${line}`);
  });
  return `${lines.join("\n")}\n`;
}

/** What may differ between two sessions of the same program: durations, addresses, thread ids. */
function normalised(output: string): string {
  return output.replace(/\b0x[0-9a-f]+\b/g, "0x?").replace(/ in \d+\.\d+s\b/g, " in ?s");
}

let sample = 0;
const PYTEST = ["/usr/bin/python3", "-B", "-m", "pytest", "-p", "no:cacheprovider", "-s", "-q", "tests"];

describe("the pytest guard only observes", () => {
  it("gives generated programs over the standard library the same outcomes and output with and without it", async () => {
    let tests = 0;
    const runs = 12;
    await fc.assert(
      fc.asyncProperty(moduleArb, async (module) => {
        const dir = join(scratch, `sample-${sample++}`);
        mkdirSync(join(dir, "tests"), { recursive: true });
        writeFileSync(join(dir, "stdops.py"), STDOPS);
        writeFileSync(join(dir, "tests", "test_generated.py"), render(module));
        const command = [...PYTEST, `--tb=${module.tb}`];
        const session = (guard: boolean) =>
          runPytestSession({
            dir,
            command,
            hidden: ["tests/test_generated.py"],
            guard,
            env: { PYTHONPATH: "." },
          });
        const bare = await session(false);
        const guarded = await session(true);
        expect(bare.outcomes.size).toBe(module.tests.length);
        expect(guarded.guard.started).toBe(true);
        expect([...guarded.outcomes]).toEqual([...bare.outcomes]);
        expect(normalised(guarded.output)).toEqual(normalised(bare.output));
        expect(guarded.status).toBe(bare.status);
        expect(guarded.guard.violations).toEqual([]);
        for (const finding of guarded.guard.ambiguous)
          expect(finding.message).toMatch(/^code under test read the source of /);
        tests += module.tests.length;
      }),
      { numRuns: runs },
    );
    expect(tests).toBeGreaterThan(12);
    console.log(
      `${runs} generated modules, ${tests} tests: same outcomes and output with and without the guard`,
    );
  }, 300_000);
});
