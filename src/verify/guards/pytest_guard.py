"""gagar's guard inside the pytest process (docs/security.md §7).

The verifier loads it as a pytest plugin under a random module name (PYTEST_ADDOPTS="-p NAME", the file
bound read-only in /gagar/support), so it is imported before any conftest or test module, and so before
any of the candidate's code. It watches what the candidate's code does to the harness from the inside and
reports it on a pipe that only the trusted runner reads (fd in GAGAR_GUARD; sandbox-runner.py):

* test-source-read (class 4): workspace code that is not a test, a conftest or the toolchain opens a
  hidden test module or a canary, or reads one from linecache (audit hook on "open"; a watched
  linecache.cache), or takes a test function's frame (sys._getframe, tb_frame);
* harness-tampering (classes 2 and 3): a builtin, a function of a module the tests import, or a function
  or method of pytest, pluggy or unittest is replaced by a callable defined in workspace code (checked
  after every test call and at the end; the tests' own mocks are not workspace code, so they pass);
* test-reexec (class 2): workspace code starts a process that runs the test runner or a test module, or
  opens a second pytest session inside this one;
* module-shadowing (class 1): a top-level module of the repository was imported from another directory
  of the workspace than the one it lives in (a copy under tests/ that the test directory's place on
  sys.path puts first).

Each record is one JSON line written with a single os.write, which is atomic on a pipe: once written it
cannot be taken back, whatever the candidate's code does afterwards. A candidate's code runs in this
process and can, with effort, blind the guard (docs/security.md §7 says what still gets through); the
static scan flags the idioms so that `--veto critical` catches what gets past it. Standard library only.
"""

import builtins
import json
import linecache
import os
import sys

import pytest

_write = os.write
_realpath = os.path.realpath
_getframe = sys._getframe
_MISSING = object()

# Left in the environment: pytest-xdist workers and the like are guarded too. Nothing in it is secret.
CONFIG = json.loads(os.environ.get("GAGAR_GUARD", "") or "null") or {}
FD = int(CONFIG.get("fd", 0))
WORKSPACE = CONFIG.get("workspace", "/workspace").rstrip("/")
TEST_SOURCES = frozenset(CONFIG.get("testSources", ()))
TEST_BASENAMES = frozenset(p.rsplit("/", 1)[-1] for p in TEST_SOURCES)
TEST_DIRS = tuple(d + "/" for d in CONFIG.get("testDirs", ()) if d)
MODULES = dict(CONFIG.get("modules", {}))
# test module -> [(module, name, alias)] of its top-level `from module import name as alias`
TEST_IMPORTS = {f: [tuple(i) for i in imports] for f, imports in CONFIG.get("testImports", {}).items()}
RUNNER_WORDS = ("pytest", "py.test")
TOOLCHAIN_PARTS = ("/site-packages/", "/dist-packages/", "/node_modules/")
TOOLCHAIN_DIRS = (".venv/", "venv/", ".tox/", ".nox/", "env/")
# The modules assertions commonly go through, besides those the hidden tests import (CONFIG["watch"]).
WATCHED_MODULES = ("unittest", "unittest.case", "json", "math", "re", "operator", "functools", "collections",
                   "decimal", "fractions", "difflib", "pprint", "copy", "itertools", "string", "numbers")
HARNESS_PREFIXES = ("_pytest", "pytest", "pluggy", "unittest")

STDLIB = os.path.dirname(os.__file__) + "/"

_busy = [False]
_relatives = {}
_test_inodes = {}  # (st_dev, st_ino) -> workspace-relative path of a hidden test module or canary
_channel = [None]
_reported = set()
_kinds = {}
_watched = []  # (label, namespace dict, name, original value)
_hot = []  # the entries of _watched checked after every test (HOT_PREFIXES)
_tests_checked = [0]
FULL_CHECK_EVERY = 64
# What assertions and result reporting go through: checked after every test.
HOT_PREFIXES = ("builtins", "unittest.case", "pytest", "_pytest.python_api", "_pytest.outcomes", "_pytest.reports",
                "_pytest.runner", "_pytest.junitxml", "_pytest.python", "_pytest.assertion", "pluggy", "json",
                "operator", "math")
_watched_modules = set()
_module_keys = {}  # watched module -> (its names when first watched, how many)
_sessions = [0]


def _emit(kind, detail, where=None):
    key = (kind, detail)
    if key in _reported or FD <= 0:
        return
    _reported.add(key)
    record = {"g": 1, "pid": os.getpid(), "kind": kind, "detail": detail[:600]}
    if where:
        record["file"], record["line"] = where
    fd = _channel[0]
    if fd is None:
        fd = _channel[0] = _find_channel()
    if fd < 0:
        return
    try:
        _write(fd, (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8", "replace"))
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


def _is_candidate_file(filename):
    """Whether code from `filename` is the candidate's: workspace code that is not a test, a conftest, a
    test directory's helper or the environment's installed packages. Cached per file name."""
    known = _kinds.get(filename)
    if known is not None:
        return known
    rel = _relative(filename)
    result = (
        rel is not None
        and rel not in TEST_SOURCES
        and rel.rsplit("/", 1)[-1] != "conftest.py"
        and not rel.startswith(TEST_DIRS)
        and not rel.startswith(TOOLCHAIN_DIRS)
        and not any(part in "/" + rel for part in TOOLCHAIN_PARTS)
    )
    _kinds[filename] = result
    return result


def _candidate_frame(frame):
    """The innermost frame of candidate code on the stack from `frame` outward, or None."""
    while frame is not None:
        if _is_candidate_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def _where(frame):
    rel = _relative(frame.f_code.co_filename)
    return (rel or frame.f_code.co_filename, frame.f_lineno)


def _test_source(path):
    """The hidden test module or canary `path` opens (workspace-relative), or None. Matched by inode,
    so a symlink, a hard link's other name or /proc/self/fd/N is the file it is."""
    if isinstance(path, int) or not _test_inodes:
        return None
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return _test_inodes.get((st.st_dev, st.st_ino))


def _on_source_read(target, frame):
    culprit = _candidate_frame(frame)
    if culprit is not None:
        _emit("test-source-read", "code under test read the hidden test %s" % target, _where(culprit))


def _audit(event, args):
    if _busy[0]:
        return
    if event == "open":
        if not args or _test_source(args[0]) is None:
            return
    elif event not in _AUDITED:
        return
    _busy[0] = True
    try:
        _AUDITED.get(event, _on_open)(args)
    except Exception:
        pass
    finally:
        _busy[0] = False


def _on_open(args):
    _on_source_read(_test_source(args[0]), _getframe(2))


def _on_frame(args):
    """sys._getframe / a traceback's tb_frame: the frame handed out, when it is a test's, to candidate code."""
    frame = args[0] if args else None
    if frame is None or not hasattr(frame, "f_code"):
        if len(args) == 2 and args[1] == "tb_frame":
            frame = getattr(args[0], "tb_frame", None)
        if frame is None:
            return
    if _relative(frame.f_code.co_filename) not in TEST_SOURCES:
        return
    caller = _getframe(2)
    # The immediate caller decides: pytest and the standard library take test frames all the time.
    while caller is not None and caller.f_code.co_filename.startswith((STDLIB, "<frozen")):
        if caller.f_code.co_filename.endswith("/inspect.py"):
            caller = caller.f_back
            continue
        return
    if caller is not None and _is_candidate_file(caller.f_code.co_filename):
        _emit("test-source-read", "code under test took the frame of the test that called it", _where(caller))


def _on_process(args):
    argv = args[1] if len(args) > 1 else args[0]
    if isinstance(argv, (str, bytes)) or argv is None:
        argv = [argv]
    words = []
    for arg in argv:
        if isinstance(arg, bytes):
            arg = os.fsdecode(arg)
        words.extend(str(arg).split())
    text = " ".join(words)
    runs_tests = any(w in text for w in RUNNER_WORDS) or any(
        w.rsplit("/", 1)[-1] in TEST_BASENAMES or (w.lstrip("./") + "/").startswith(TEST_DIRS) for w in words)
    if not runs_tests:
        return
    culprit = _candidate_frame(_getframe(2))
    if culprit is not None:
        _emit("test-reexec", "code under test started a process that runs the test runner or names a hidden test: %s" % text[:200], _where(culprit))


_AUDITED = {
    "open": _on_open,
    "sys._getframe": _on_frame,
    "object.__getattr__": _on_frame,
    "subprocess.Popen": _on_process,
    "os.exec": _on_process,
    "os.posix_spawn": _on_process,
    "os.spawn": _on_process,
    "os.system": _on_process,
}


class _WatchedCache(dict):
    """linecache.cache, with reads of a hidden test's lines by candidate code reported."""

    def _check(self, key):
        if isinstance(key, str) and not _busy[0] and key.rsplit("/", 1)[-1] in TEST_BASENAMES:
            target = _test_source(key)
            if target is not None:
                _busy[0] = True
                try:
                    _on_source_read(target, _getframe(2))
                finally:
                    _busy[0] = False

    def __getitem__(self, key):
        self._check(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._check(key)
        return dict.get(self, key, default)

    def pop(self, key, *default):
        self._check(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key, default=None):
        self._check(key)
        return dict.setdefault(self, key, default)

    def values(self):
        for key in list(self):
            self._check(key)
        return dict.values(self)

    def items(self):
        for key in list(self):
            self._check(key)
        return dict.items(self)


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


def _watch_namespace(label, namespace, deep, module=False):
    hot = label.startswith(HOT_PREFIXES) or label.split(".", 1)[0] in _WATCH_TOPS
    for name, value in list(namespace.items()):
        # A module's data (json's default encoder) is watched too: only a replacement made by
        # candidate code counts, so its own caches and counters changing is fine.
        if callable(value) or isinstance(value, (staticmethod, classmethod, property)) or (
                module and not name.startswith("__") and not isinstance(value, (int, float, str, bytes, bool, type(None)))):
            entry = (label, namespace, name, value)
            _watched.append(entry)
            if hot:
                _hot.append(entry)
            if deep and isinstance(value, type) and value.__module__ == label:
                _watch_namespace("%s.%s" % (label, name), value.__dict__, False)


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
    _watch_namespace(name, module.__dict__, deep, module=True)


def _is_toolchain(file):
    rel = _relative(file) or ""
    return rel.startswith(TOOLCHAIN_DIRS) or any(part in "/" + rel for part in TOOLCHAIN_PARTS)


def _import_quietly(name):
    try:
        spec = __import__("importlib.util").util.find_spec(name)
    except Exception:
        return
    origin = getattr(spec, "origin", None) if spec else None
    if spec is None or (origin and _relative(origin) is not None and not _is_toolchain(origin)):
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
    candidate code."""
    for label, namespace, name, original in _watched if entries is None else entries:
        current = namespace.get(name, _MISSING)
        if current is original or current is _MISSING:
            continue
        if _made_by_candidate(current):
            origin = _origin(current)
            _emit("harness-tampering", "%s.%s was replaced by code under test (%s)" % (
                label, name, _relative(origin) or origin), None)


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
        for name in _NAMESPACE_NAMES:
            value = namespace.get(name, _MISSING)
            if value is _MISSING or (name in _WATCH and value is sys.modules.get(name)):
                continue
            if _made_by_candidate(value):
                _emit("harness-tampering", "%s of the test module %s was replaced by code under test (%s)" % (
                    name, rel, _relative(_origin(value)) or _origin(value)), None)
        if namespace.get("__builtins__") not in (builtins, builtins.__dict__):
            _emit("harness-tampering", "the builtins of the test module %s were replaced" % rel, None)
        for source, name, alias in TEST_IMPORTS.get(rel, ()):
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


def check_all():
    check_integrity()
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
    check_integrity(_hot)
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
    linecache.cache = _WatchedCache(linecache.cache)
    sys.addaudithook(_audit)
    _emit("start", "pytest guard")


_CWD = "/"
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
        culprit = _candidate_frame(_getframe(1))
        if culprit is not None:
            _emit("test-reexec", "code under test started a second pytest session", _where(culprit))


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
