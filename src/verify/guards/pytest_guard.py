"""gagar's guard inside the pytest process (docs/security.md §7).

The verifier loads it as a pytest plugin under a random module name (PYTEST_ADDOPTS="-p NAME", the file
bound read-only in /gagar/support), so it is imported before any conftest or test module, and so before
any of the candidate's code. It watches what the candidate's code does to the harness from the inside and
reports it on a pipe that only the trusted runner reads (fd in GAGAR_GUARD; sandbox-runner.py):

* test-source-read (class 4): code under test opens, imports or reads the whole source of a hidden test
  module or canary itself (an audit hook on "open"). Each event is the doing of the innermost frame of
  the workspace's own code on the stack: the standard library, installed packages and code compiled at
  run time between it and the event are the machinery it called. Lines read through the machinery that
  formats frames and tracebacks (traceback, logging, warnings, inspect.stack, linecache.getline, an
  installed package's renderer) are not evidence; a path or an object the test itself handed over is
  an ambiguous record, not a violation;
* harness-tampering (classes 2 and 3): a builtin, a function, method or datum of the test framework and
  its plugins, the JUnit writer or an assertion helper (json, math, operator...) is replaced by something
  defined in workspace code (checked after every test call and at the end; the tests' own mocks are not
  workspace code, so they pass); a function of another module the tests use replaced so is ambiguous
  (honest libraries configure and patch those), unless it is named like an assertion;
* test-reexec (class 2): code under test starts a process that runs the test runner or a hidden test
  module, opens a second pytest session inside this one, or compiles code under a hidden test's name;
* module-shadowing (class 1): a top-level module of the repository was imported from another directory
  of the workspace than the one it lives in (a copy under tests/ that the test directory's place on
  sys.path puts first).

It only observes: it replaces nothing the program uses (it adds an audit hook, pytest hooks, its plugin
and its directory at the end of sys.path), so a program's results, output, exceptions and warnings are
the same with it as without it.

Each record is one JSON line written with a single os.write, which is atomic on a pipe: once written it
cannot be taken back, whatever the candidate's code does afterwards. A candidate's code runs in this
process and can, with effort, blind the guard (docs/security.md §7 says what still gets through); the
static scan flags the idioms so that `--veto critical` catches what gets past it. Standard library only.
"""

import builtins
import json
import linecache
import operator
import os
import re
import sys
import tokenize
import types
from _thread import get_ident

import pytest

# Bound now: code under test may replace json.dumps, os.write and the like before a record is written.
_write = os.write
_encode = json.JSONEncoder(separators=(",", ":")).encode
_itemgetter = operator.itemgetter
_is_not = operator.is_not
_any = any
_map = map
_realpath = os.path.realpath
_getframe = sys._getframe
_stat = os.stat
_getcwd = os.getcwd
_MISSING = object()

# Left in the environment: pytest-xdist workers and the like are guarded too. Nothing in it is secret.
CONFIG = json.loads(os.environ.get("GAGAR_GUARD", "") or "null") or {}
FD = int(CONFIG.get("fd", 0))
WORKSPACE = CONFIG.get("workspace", "/workspace").rstrip("/")
TEST_SOURCES = frozenset(CONFIG.get("testSources", ()))
TEST_BASENAMES = frozenset(p.rsplit("/", 1)[-1] for p in TEST_SOURCES)
# Those that declare tests (and the canaries): a process started on another hidden file (an executable
# fixture) does not run the tests again.
TEST_MODULES = frozenset(CONFIG.get("testModules", TEST_SOURCES))
TEST_DIRS = tuple(d + "/" for d in CONFIG.get("testDirs", ()) if d)
MODULES = dict(CONFIG.get("modules", {}))
# test module -> [(module, name, alias)] of its top-level `from module import name as alias` ("*" for both
# names of a star import)
TEST_IMPORTS = {f: [tuple(i) for i in imports] for f, imports in CONFIG.get("testImports", {}).items()}
# What a process that runs the tests is started as: the runner's program, or python -m with it.
RUNNER_PROGRAMS = ("pytest", "py.test")
TOOLCHAIN_PARTS = ("/site-packages/", "/dist-packages/", "/node_modules/")
TOOLCHAIN_DIRS = (".venv/", "venv/", ".tox/", ".nox/", "env/")
# The modules assertions commonly go through, besides those the hidden tests import (CONFIG["watch"]).
WATCHED_MODULES = ("unittest", "unittest.case", "json", "math", "re", "operator", "functools", "collections",
                   "decimal", "fractions", "difflib", "pprint", "copy", "itertools", "string", "numbers")
HARNESS_PREFIXES = ("_pytest", "pytest", "pluggy", "unittest")

STDLIB = os.path.dirname(os.__file__) + "/"
_LINECACHE_FILES = frozenset((linecache.__file__, tokenize.__file__))
_INSPECT_FILE = STDLIB + "inspect.py"
# inspect's functions that describe frames, with `context` lines around each frame's current line: what
# traceback renderers call (pyparsing's explain(depth=None) asks for a thousand lines of context). Its
# other readers (getsource, getsourcelines, findsource, getcomments) hand over a whole object or file.
_FRAME_INFO = frozenset(("stack", "trace", "getouterframes", "getinnerframes", "getframeinfo"))

_busy = set()  # threads inside the audit hook
_relatives = {}
_test_inodes = {}  # (st_dev, st_ino) -> workspace-relative path of a hidden test module or canary
_channel = [None]
_reported = set()
_kinds = {}
_watched = []  # [label, namespace dict, name, whether it is the harness's, the value last seen there]
_hot = []  # the entries of _watched checked after every test (HOT_PREFIXES)
_tests_checked = [0]
FULL_CHECK_EVERY = 64
# What assertions and result reporting go through: checked after every test.
HOT_PREFIXES = ("builtins", "unittest.case", "pytest", "_pytest.python_api", "_pytest.outcomes", "_pytest.reports",
                "_pytest.runner", "_pytest.junitxml", "_pytest.python", "_pytest.assertion", "pluggy", "json",
                "operator", "math")
_groups = {}  # id of an entry list -> (its length, [[namespace, getter, values last seen, entries]])
_watched_modules = set()
_module_keys = {}  # watched module -> (its names when first watched, how many)
_sessions = [0]


def _emit(kind, detail, where=None, ambiguous=False):
    key = (kind, detail, where, ambiguous)
    if key in _reported or FD <= 0:
        return
    _reported.add(key)
    record = {"g": 1, "pid": os.getpid(), "kind": kind, "detail": detail[:600]}
    if ambiguous:
        record["ambiguous"] = True
    if where:
        record["file"], record["line"] = where
    fd = _channel[0]
    if fd is None:
        fd = _channel[0] = _find_channel()
    if fd < 0:
        return
    try:
        _write(fd, (_encode(record) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


PIPE_INODE = int(os.environ.get("GAGAR_GUARD_PIPE", "-1") or -1)


def _is_channel(path):
    """Whether `path` is the guard pipe: the runner names its inode, since fd FD may be anything else."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o010000 and st.st_ino == PIPE_INODE


def _find_channel():
    """The guard pipe: fd FD of this process, or of an ancestor, when a launcher did not pass it on."""
    if _is_channel("/proc/self/fd/%d" % FD):
        return FD
    pid = os.getppid()
    while pid > 1:
        path = "/proc/%d/fd/%d" % (pid, FD)
        if _is_channel(path):
            try:
                return os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return -1
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                stat = f.read()
            pid = int(stat[stat.rfind(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            return -1
    return -1


# ------------------------------------------------------------------------------ whose code a frame runs

def _relative(path):
    """The workspace-relative form of a path, or None outside the workspace (cached: the paths asked
    about are code objects' and modules' files, which do not move during a session)."""
    known = _relatives.get(path, _MISSING)
    if known is not _MISSING:
        return known
    rel = None
    if path and path[0] != "<":
        full = _realpath(path if path[0] == "/" else os.path.join(_CWD, path))
        if full != WORKSPACE and full.startswith(WORKSPACE + "/"):
            rel = full[len(WORKSPACE) + 1:]
    _relatives[path] = rel
    return rel


CANDIDATE, TEST, MACHINERY = "candidate", "test", "machinery"


def _code_kind(filename):
    """Whose code runs in a frame of `filename`: the candidate's (workspace code that is not a test, a
    conftest, a test directory's helper or the environment's installed packages), the tests', or the
    machinery (the standard library, installed packages, this guard, and code compiled at run time,
    whose own frames say nothing of who asked for it). Cached per file name."""
    known = _kinds.get(filename)
    if known is not None:
        return known
    rel = _relative(filename)
    if rel is None or rel.startswith(TOOLCHAIN_DIRS) or any(part in "/" + rel for part in TOOLCHAIN_PARTS):
        kind = MACHINERY
    elif rel in TEST_SOURCES or rel.rsplit("/", 1)[-1] == "conftest.py" or rel.startswith(TEST_DIRS):
        kind = TEST
    else:
        kind = CANDIDATE
    _kinds[filename] = kind
    return kind


def _is_candidate_file(filename):
    return _code_kind(filename) is CANDIDATE


def _actor(frame):
    """The frame that did what the stack from `frame` outward is doing, and the machinery frames it called
    on the way (innermost first): the innermost frame of the workspace's own code. None when no workspace
    code is on the stack (pytest collecting, reporting, formatting a failure)."""
    chain = []
    while frame is not None:
        if _code_kind(frame.f_code.co_filename) is not MACHINERY:
            return frame, chain
        chain.append(frame)
        frame = frame.f_back
    return None, chain


def _where(frame):
    rel = _relative(frame.f_code.co_filename)
    return (rel or frame.f_code.co_filename, frame.f_lineno)


def _test_source(path):
    """The hidden test module or canary `path` opens (workspace-relative), or None. Matched by inode,
    so a symlink, a hard link's other name or /proc/self/fd/N is the file it is."""
    if isinstance(path, int) or not _test_inodes:
        return None
    try:
        st = _stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return _test_inodes.get((st.st_dev, st.st_ino))


# ------------------------------------------------------------------------------ how a hidden test was read

FORMATTED, SOURCE, OPENED = "formatted", "source", "opened"


def _how_read(chain):
    """How the machinery in `chain` (innermost first, up to the actor) came to open a hidden test: FORMATTED
    (lines fetched for frames by the standard library's or an installed package's traceback, logging,
    warnings or inspect.stack machinery, or by linecache.getline: the lines around where frames run, what
    every traceback renderer reads), SOURCE (the actor asked linecache or inspect for a whole file or
    object), or OPENED (a plain open, or an import), with the object whose source was asked for, if any."""
    i = 0
    while i < len(chain) and chain[i].f_code.co_filename in _LINECACHE_FILES:
        i += 1
    if i == 0 or chain[i - 1].f_code.co_filename != linecache.__file__:
        return OPENED, None
    if i == len(chain):  # the actor called linecache itself
        return (FORMATTED if chain[i - 1].f_code.co_name == "getline" else SOURCE), None
    requester = chain[i]
    if requester.f_code.co_filename != _INSPECT_FILE:
        return FORMATTED, None  # the standard library's or an installed package's own choice
    j = i
    while j + 1 < len(chain) and chain[j + 1].f_code.co_filename == _INSPECT_FILE:
        j += 1
    if j + 1 < len(chain):
        return FORMATTED, None  # inspect called by other machinery
    entry = chain[j]
    if entry.f_code.co_name in _FRAME_INFO:
        return FORMATTED, None
    args = entry.f_locals
    return SOURCE, args.get("object", args.get("frame"))


def _handed(target, frame):
    """Whether test code on the stack from `frame` outward handed over the path of `target` (a hidden test,
    workspace-relative): the file, or a directory below the workspace root that holds it, among the
    values a test frame holds (its locals, the globals its code names, its string constants; one level
    into lists, tuples, sets and dicts). A library given `__file__` by the test, or a test's directory to
    scan, opens it for the test; to fake that, code under test would have to write into the tests' own
    namespaces."""
    full = WORKSPACE + "/" + target
    cwd = _getcwd()
    while frame is not None:
        code = frame.f_code
        if _code_kind(code.co_filename) is TEST:
            values = [c for c in code.co_consts if isinstance(c, (str, bytes))]
            names = frame.f_globals
            if isinstance(names, dict):
                values += [names.get(n) for n in code.co_names]
            if frame.f_locals is not names:
                values += list(frame.f_locals.values())
            for value in values:
                for item in _shallow(value):
                    path = _as_path(item)
                    if path is not None:
                        real = _realpath(os.path.join(cwd, path))
                        if real == full or (real.startswith(WORKSPACE + "/") and full.startswith(real + "/")):
                            return True
        frame = frame.f_back
    return False


def _shallow(value):
    if isinstance(value, (list, tuple, set, frozenset)):
        return value
    if isinstance(value, dict):
        return list(value.values())
    return (value,)


def _as_path(value):
    """`value` as a path, when it looks like one (a pathlib path, or a string with a slash or a .py name)."""
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    elif type(value).__module__ == "pathlib":
        value = str(value)
    if isinstance(value, str) and ("/" in value or value.endswith(".py")) and "\0" not in value:
        return value
    return None


_WHERE_CODE_RUNS = (types.FrameType, types.TracebackType, types.CodeType, types.ModuleType, str, bytes)


def _is_handed_object(obj, frame):
    """Whether inspect was asked for the source of a function, class or method that is not running (what
    libraries read of the callables and classes they are given: a lambda, a decorated function, a model
    class), rather than of a frame, a traceback, a code object, a module or a file name, or of the
    function or class whose code runs on the stack from `frame` outward (the running test)."""
    if obj is None or isinstance(obj, _WHERE_CODE_RUNS):
        return False
    obj = getattr(obj, "__func__", obj)
    if isinstance(obj, type):
        codes = {id(getattr(getattr(v, "__func__", v), "__code__", None)) for v in vars(obj).values()}
    else:
        codes = {id(getattr(obj, "__code__", None))}
    codes.discard(id(None))
    while frame is not None:
        if id(frame.f_code) in codes:
            return False
        frame = frame.f_back
    return True


def _on_open(args):
    target = _test_source(args[0]) if args else None
    if target is None:
        return
    frame = _getframe(2)
    actor, chain = _actor(frame)
    if actor is None:
        return
    if _code_kind(actor.f_code.co_filename) is not CANDIDATE:
        return
    how, obj = _how_read(chain)
    if how is FORMATTED:
        return
    if how is SOURCE and _is_handed_object(obj, frame):
        _emit("test-source-read", "code under test read the source of %s, defined in the hidden test %s" % (
            getattr(obj, "__qualname__", "an object"), target), _where(actor), ambiguous=True)
    elif _handed(target, actor):
        _emit("test-source-read", "code under test opened the hidden test %s by a path the test handed it" % target,
              _where(actor), ambiguous=True)
    elif how is SOURCE:
        _emit("test-source-read", "code under test read the source of the hidden test %s" % target, _where(actor))
    else:
        _emit("test-source-read", "code under test opened the hidden test %s" % target, _where(actor))


def _on_compile(args):
    """Code compiled under the name of test code runs as the tests' code: from code under test, a disguise."""
    name = args[1] if len(args) > 1 else None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not isinstance(name, str) or not name.endswith(".py") or _code_kind(name) is not TEST:
        return
    actor, _ = _actor(_getframe(2))
    if actor is None or _code_kind(actor.f_code.co_filename) is not CANDIDATE:
        return
    rel = _relative(name) or name
    if rel in TEST_SOURCES and _handed(rel, actor):
        _emit("test-reexec", "code under test compiled the hidden test %s, whose path the test handed it" % rel,
              _where(actor), ambiguous=True)
    else:
        _emit("test-reexec", "code under test compiled code under the name of the test file %s" % rel, _where(actor))


def _on_process(args):
    argv = args[1] if len(args) > 1 else args[0]
    if isinstance(argv, (str, bytes)) or argv is None:
        argv = [argv]
    words = []
    for arg in argv:
        if isinstance(arg, bytes):
            arg = os.fsdecode(arg)
        words.extend(str(arg).split())
    runner = any(_runs_runner(w) for w in words)
    named = [_named_test(w) for w in words]
    named = [n for n in named if n]
    if not runner and not named:
        return
    actor, _ = _actor(_getframe(2))
    if actor is None or _code_kind(actor.f_code.co_filename) is not CANDIDATE:
        return
    text = " ".join(words)[:200]
    if not runner and all(_handed(n, actor) for n in named):
        _emit("test-reexec", "code under test started a process on a hidden test the test handed it: %s" % text,
              _where(actor), ambiguous=True)
    else:
        _emit("test-reexec", "code under test started a process that runs the test runner or names a hidden test: %s"
              % text, _where(actor))


def _runs_runner(word):
    """Whether a word of a command line is the test runner: its program (`pytest`, `/usr/bin/py.test`,
    `pytest-3`) or the module of `python -m pytest`; a path that merely contains the word (pytest's own
    temporary directories, /tmp/pytest-of-root/pytest-0) is not."""
    parts = word.rsplit("/", 2)
    if parts[-1].rstrip("0123456789.-") not in RUNNER_PROGRAMS:
        return False
    return len(parts) == 1 or parts[-2] == "bin"


def _named_test(word):
    """The hidden test module a command-line word names, or None (also for a hidden file that declares
    no tests, such as an executable fixture the test hands over)."""
    word = word.split("::", 1)[0]
    if not word.endswith(".py") or word.rsplit("/", 1)[-1] not in TEST_BASENAMES:
        return None
    rel = _test_source(word) or (word.lstrip("./") if word.lstrip("./") in TEST_SOURCES else None)
    return rel if rel in TEST_MODULES else None


def _audit(event, args):
    if event == "open":
        if not args or not _test_inodes:
            return
    elif event not in _AUDITED:
        return
    thread = get_ident()
    if thread in _busy:
        return
    _busy.add(thread)
    try:
        _AUDITED[event](args)
    except Exception:
        pass
    finally:
        _busy.discard(thread)


_AUDITED = {
    "open": _on_open,
    "compile": _on_compile,
    "subprocess.Popen": _on_process,
    "os.exec": _on_process,
    "os.posix_spawn": _on_process,
    "os.spawn": _on_process,
    "os.system": _on_process,
}


def _origin(value):
    """The file that defined a callable (its code, or its class's), or None for builtins and the like."""
    for _ in range(4):
        func = getattr(value, "__func__", None) or getattr(value, "func", None)
        if func is None or func is value:
            break
        value = func
    code = getattr(value, "__code__", None)
    if code is not None:
        return getattr(code, "co_filename", None)
    kind = value if isinstance(value, type) else type(value)
    module = sys.modules.get(getattr(kind, "__module__", None) or "")
    return getattr(module, "__file__", None)


def _is_harness_module(name):
    """Whether a module is the harness itself (the test framework and its plugins, the JUnit writer) or
    what assertions compare with (builtins, WATCHED_MODULES): replacing anything of it from code under
    test is an attack. Other modules (logging, time, a library the tests import) are configured and
    patched by honest libraries (logging.setLoggerClass, a clock freezer, a request mocker)."""
    return name == "builtins" or name.startswith(HARNESS_PREFIXES) or name.startswith("xml.etree") or (
        name.split(".", 1)[0] in _ASSERTION_TOPS)


def _watch_namespace(label, namespace, deep, module=False, harness=True):
    # What the tests import is checked after every test too where it is an assertion helper; the rest of
    # it at the full checks (FULL_CHECK_EVERY), where a replacement is only ambiguous anyway.
    hot = label.startswith(HOT_PREFIXES)
    imported = label.split(".", 1)[0] in _WATCH_TOPS
    for name, value in list(namespace.items()):
        # A harness module's data (json's default encoder) is watched too: only a replacement made by
        # candidate code counts, so its own caches and counters changing is fine. Of other modules,
        # only functions.
        if harness:
            watched = callable(value) or isinstance(value, (staticmethod, classmethod, property)) or (
                module and not name.startswith("__") and not isinstance(value, (int, float, str, bytes, bool, type(None))))
        else:
            watched = isinstance(value, _FUNCTIONS)
        if watched:
            # The last field is the value last looked at: one that was judged stays judged.
            entry = [label, namespace, name, harness, value]
            _watched.append(entry)
            if hot or (imported and (harness or _ASSERTION_NAME.search(name))):
                _hot.append(entry)
        if deep and isinstance(value, type) and value.__module__ == label:
            _watch_namespace("%s.%s" % (label, name), value.__dict__, False, harness=harness)


def _watch_module(name, deep=False):
    module = sys.modules.get(name)
    if module is None or name in _watched_modules:
        return
    _watched_modules.add(name)
    keys = frozenset(module.__dict__)
    _module_keys[name] = (keys, len(keys))
    file = getattr(module, "__file__", None)
    if file and _relative(file) is not None and not _is_toolchain(file):
        return  # the repository's own modules are not the harness
    _watch_namespace(name, module.__dict__, deep, module=True, harness=_is_harness_module(name))


def _is_toolchain(file):
    rel = _relative(file) or ""
    return rel.startswith(TOOLCHAIN_DIRS) or any(part in "/" + rel for part in TOOLCHAIN_PARTS)


def _import_quietly(name):
    try:
        spec = __import__("importlib.util").util.find_spec(name)
    except Exception:
        return
    origin = getattr(spec, "origin", None) if spec else None
    # An origin that is not a path ("built-in", "frozen") is no workspace file.
    if spec is None or (origin and origin[:1] == "/" and _relative(origin) is not None and not _is_toolchain(origin)):
        return  # never import the repository's code early: it is the candidate's
    try:
        __import__(name)
    except Exception:
        pass


def _made_by_candidate(value):
    """Whether a callable comes from candidate code: defined in a workspace file that is the
    candidate's, or compiled at run time from a string (`exec`, `compile`), which harness functions
    never are once the session runs."""
    origin = _origin(value)
    if not origin:
        return False
    if origin.startswith("<") and not origin.startswith("<frozen"):
        return True
    return _is_candidate_file(origin)


def check_integrity(entries=None):
    """Reports every watched function (of `entries`, default all) that now is a callable defined in
    candidate code: a violation in the harness, or where the name is an assertion's; ambiguous in
    other modules."""
    for entry in _watched if entries is None else entries:
        current = entry[1].get(entry[2], _MISSING)
        if current is entry[4] or current is _MISSING:
            continue
        entry[4] = current
        label, _, name, harness, _ = entry
        if _made_by_candidate(current):
            origin = _origin(current)
            _emit("harness-tampering", "%s.%s was replaced by code under test (%s)" % (
                label, name, _relative(origin) or origin), None,
                ambiguous=not harness and not _ASSERTION_NAME.search(name))


def _test_modules():
    return [m for m in list(sys.modules.values())
            if isinstance(getattr(m, "__file__", None), str) and _relative(m.__file__) in TEST_SOURCES]


def check_test_namespaces(modules):
    """A test module's global that stands for a builtin or a module the tests import, set by candidate
    code (a `type` that lies about one class, a `json` that serialises a wrong value right), and a name
    the test module imported that is no longer what its module exports (a fixed `div` handed to the
    tests while the package's own stays broken)."""
    for module in modules:
        rel = _relative(module.__file__)
        namespace = vars(module)
        imports = TEST_IMPORTS.get(rel, ())
        for name in _NAMESPACE_NAMES:
            value = namespace.get(name, _MISSING)
            if value is _MISSING or (name in _WATCH and value is sys.modules.get(name)):
                continue
            if _imported_by_test(imports, name, value):
                continue  # the test's own choice (`from mylib.compat import str`): checked below
            if _made_by_candidate(value):
                _emit("harness-tampering", "%s of the test module %s was replaced by code under test (%s)" % (
                    name, rel, _relative(_origin(value)) or _origin(value)), None)
        if namespace.get("__builtins__") not in (builtins, builtins.__dict__):
            _emit("harness-tampering", "the builtins of the test module %s were replaced" % rel, None)
        for source, name, alias in imports:
            if name == "*":
                continue
            exporter = sys.modules.get(source)
            real = getattr(exporter, name, _MISSING) if exporter is not None else _MISSING
            current = namespace.get(alias, _MISSING)
            if real is _MISSING or current is _MISSING or current is real:
                continue
            # The same function made again (a module's lazy __getattr__) is the same code.
            code = getattr(current, "__code__", None)
            if code is not None and code is getattr(real, "__code__", None):
                continue
            if _made_by_candidate(current):
                _emit("module-shadowing", "the test module %s was handed a %s that is not %s.%s" % (
                    rel, alias, source, name), (rel, 1))


def _imported_by_test(imports, name, value):
    """Whether a test module's global `name` is bound by the module's own top-level import: named in a
    `from m import name`, or what a `from m import *` brings."""
    for source, imported, alias in imports:
        if alias == name:
            return True
        if imported == "*":
            exporter = sys.modules.get(source)
            if exporter is not None and getattr(exporter, name, _MISSING) is value:
                return True
    return False


def check_harness_namespaces():
    """A global named like a builtin (`open`, `type`) added to a module of the harness by candidate
    code: it shadows the builtin for that module alone (the JUnit writer's `open`). Only names a
    module did not have when it was first watched are looked at."""
    for name, known in _module_keys.items():
        module = sys.modules.get(name)
        namespace = getattr(module, "__dict__", None)
        if not namespace or len(namespace) == known[1]:
            continue
        for added in namespace.keys() - known[0]:
            if added not in _BUILTIN_SET:
                continue
            value = namespace.get(added, _MISSING)
            if value is not _MISSING and _made_by_candidate(value):
                _emit("harness-tampering", "%s.%s was set by code under test (%s)" % (
                    name, added, _relative(_origin(value)) or _origin(value)), None)


def check_unchanged(entries):
    """check_integrity(entries), looking only at namespaces where something changed since the last look:
    the values of each namespace are fetched and compared by identity in C (itemgetter, is_not), which
    keeps the check after every test cheap on suites of thousands of tests."""
    groups = _groups.get(id(entries))
    if groups is None or groups[0] != len(entries):
        by_namespace = {}
        for entry in entries:
            by_namespace.setdefault(id(entry[1]), []).append(entry)
        groups = _groups[id(entries)] = (len(entries), [
            [group[0][1], _itemgetter(*[e[2] for e in group]) if len(group) > 1 else None, None, group]
            for group in by_namespace.values()])
    for group in groups[1]:
        namespace, get, seen, group_entries = group
        try:
            current = get(namespace) if get is not None else (namespace[group_entries[0][2]],)
        except Exception:
            current = None
        if seen is None or current is None or _any(_map(_is_not, current, seen)):
            check_integrity(group_entries)
            group[2] = tuple(e[4] for e in group_entries) if current is not None else None


def check_all():
    check_unchanged(_watched)
    check_harness_namespaces()
    check_test_namespaces(_test_modules())


def check_test(item):
    """After a test: the functions assertions and reporting go through, and the test's own module;
    everything, every FULL_CHECK_EVERY tests (a replacement that is undone in between is the static
    scan's to catch)."""
    _tests_checked[0] += 1
    if _tests_checked[0] % FULL_CHECK_EVERY == 0:
        check_all()
        return
    check_unchanged(_hot)
    module = getattr(item, "module", None)
    if module is not None and isinstance(getattr(module, "__file__", None), str):
        check_test_namespaces([module])


def check_shadowing():
    for name, root in MODULES.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        file = getattr(module, "__file__", None)
        path = list(getattr(module, "__path__", None) or ())
        rel = _relative(file) if file else (_relative(path[0]) if path else None)
        if rel is None:
            continue
        parts = rel.split("/")
        if file and parts[-1] == "__init__.py":
            parts = parts[:-1]
        found = "/".join(parts[:-1])
        if found != root:
            _emit("module-shadowing", "the tests imported %s from %s, not from the repository's %s" % (
                name, rel, root or "top level"), (rel, 1))


def _watch_loaded(names):
    """Watches the loaded modules of these names and their loaded submodules."""
    tops = {n.split(".", 1)[0] for n in names}
    for loaded in sorted(sys.modules):
        if loaded in names or loaded.split(".", 1)[0] in tops:
            _watch_module(loaded, deep=True)


def _start():
    global _CWD
    _CWD = os.getcwd()
    for name in list(CONFIG.get("watch", ())) + list(WATCHED_MODULES):
        _import_quietly(name)
    _watch_namespace("builtins", builtins.__dict__, False)
    _watch_loaded(set(CONFIG.get("watch", ())) | set(WATCHED_MODULES))
    for rel in TEST_SOURCES:
        try:
            st = os.stat(os.path.join(WORKSPACE, rel))
        except OSError:
            continue
        _test_inodes[(st.st_dev, st.st_ino)] = rel
    sys.addaudithook(_audit)
    _emit("start", "pytest guard")


_CWD = "/"
_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, staticmethod, classmethod)
_ASSERTION_TOPS = frozenset(n.split(".", 1)[0] for n in WATCHED_MODULES)
# What an assertion helper of another library is called (numpy.testing.assert_allclose, array_equal).
_ASSERTION_NAME = re.compile(r"(?i)assert|raises|approx|expect|equal|compare|isclose|allclose")
_WATCH = frozenset(CONFIG.get("watch", ())) | frozenset(WATCHED_MODULES)
# The modules the hidden tests import themselves: what their assertions go through, so checked hot.
_WATCH_TOPS = frozenset(n.split(".", 1)[0] for n in CONFIG.get("watch", ()))
_NAMESPACE_NAMES = tuple(sorted(set(builtins.__dict__) | _WATCH))
_BUILTIN_SET = frozenset(n for n in builtins.__dict__ if not n.startswith("_"))
if FD > 0:
    _start()


def pytest_configure(config):
    _sessions[0] += 1
    if _sessions[0] > 1:
        actor, _ = _actor(_getframe(1))
        if actor is not None and _code_kind(actor.f_code.co_filename) is CANDIDATE:
            _emit("test-reexec", "code under test started a second pytest session", _where(actor))


def pytest_sessionstart(session):
    # Everything loaded by now is the toolchain (the standard library, pytest, its plugins and what they
    # import, like xml.etree for the JUnit writer); the repository's own modules are left out.
    for name in sorted(sys.modules):
        _watch_module(name, deep=name.split(".", 1)[0] in HARNESS_PREFIXES or name in _WATCH)


def pytest_collection_finish(session):
    check_all()
    check_shadowing()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield
    check_test(item)


def pytest_sessionfinish(session, exitstatus):
    check_all()
    check_shadowing()
