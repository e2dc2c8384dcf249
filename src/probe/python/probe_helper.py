# gagar behavioural probes: the observation helper, inlined at the top of every generated probe module
# (src/probe/python/render.ts), so a probe needs no import path of its own. Each probe is a copy of a test
# whose assertions record what they check instead of failing: one JSON line per observation, appended to
# the file GAGAR_PROBE_CHANNEL names (a pipe or a file the runner of the probes reads). docs/probes.md
# describes the records; src/probe/channel.ts reads them. Standard library only.
def _gagar_probe_helper():
    import collections
    import dataclasses
    import datetime
    import decimal
    import enum
    import fractions
    import functools
    import hashlib
    import inspect
    import json
    import operator
    import os
    import pathlib
    import re
    import uuid
    import warnings

    path = os.environ.get("GAGAR_PROBE_CHANNEL", "")
    if not path:
        raise RuntimeError("gagar probe module run without GAGAR_PROBE_CHANNEL (the file observations go to)")
    write, dumps, environ = os.write, json.dumps, os.environ
    ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
    MAX_ITEMS, MAX_TEXT, MAX_DEPTH, MAX_RECORD = 200, 2000, 8, 8000
    # An assertion in a loop of thousands: its first observations say enough, and recording them all
    # would cost more than the test. Later ones are still evaluated (they may have side effects).
    MAX_OCCURRENCES = 50
    OUTCOMES = ("Skipped", "XFailed", "Exit")

    def qual(t):
        return getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)

    def sha(text):
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def canonical(v):
        return dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def text_value(tag, s, shown):
        out = {"t": tag, "v": shown[:MAX_TEXT]}
        if len(shown) > MAX_TEXT:
            out["len"] = len(shown)
            out["sha"] = sha(shown)
        return out

    def items(tag, xs, depth, seen, cls=None):
        out = {"t": tag, "v": [ser(x, depth + 1, seen) for x in xs[:MAX_ITEMS]]}
        if len(xs) > MAX_ITEMS:
            out["len"] = len(xs)
        if cls:
            out["class"] = cls
        return out

    def unordered(tag, xs, depth, seen):
        values = sorted((ser(x, depth + 1, seen) for x in list(xs)[:MAX_ITEMS]), key=canonical)
        out = {"t": tag, "v": values}
        if len(xs) > MAX_ITEMS:
            out["len"] = len(xs)
        return out

    def fields_of(x):
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
        found = {}
        if hasattr(x, "__dict__") and isinstance(vars(x), dict):
            found.update(vars(x))
        for klass in type(x).__mro__:
            slots = getattr(klass, "__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                if slot not in ("__dict__", "__weakref__") and hasattr(x, slot):
                    found[slot] = getattr(x, slot)
        return {k: v for k, v in found.items() if not (k.startswith("__") or callable(v))}

    def ser(x, depth=0, seen=None):
        """A JSON value with a type tag, the same for equal values of every run and process."""
        seen = set() if seen is None else seen
        if depth > MAX_DEPTH:
            return {"t": "deep"}
        t = type(x)
        try:
            if x is None:
                return {"t": "none"}
            if t is bool:
                return {"t": "bool", "v": x}
            if isinstance(x, enum.Enum):
                return {"t": "enum", "class": qual(t), "v": str(x.name)}
            if isinstance(x, int):
                n = int(x)
                return {"t": "int", "v": n if -(2**53) < n < 2**53 else str(n)}
            if isinstance(x, float):
                return {"t": "float", "v": repr(float(x))}
            if isinstance(x, complex):
                return {"t": "complex", "v": repr(complex(x))}
            if isinstance(x, str):
                return text_value("str", x, str(x))
            if isinstance(x, (bytes, bytearray, memoryview)):
                return text_value("bytes", x, bytes(x).hex())
            if isinstance(x, BaseException):
                return {"t": "error", "type": qual(t), "message": str(x)[:300]}
            if isinstance(x, type):
                return {"t": "type", "v": qual(x)}
            if isinstance(x, (datetime.datetime, datetime.date, datetime.time)):
                return {"t": "datetime", "class": qual(t), "v": x.isoformat()}
            if isinstance(x, datetime.timedelta):
                return {"t": "timedelta", "v": repr(x.total_seconds())}
            if isinstance(x, (decimal.Decimal, fractions.Fraction, uuid.UUID, pathlib.PurePath)):
                return {"t": "scalar", "class": qual(t), "v": str(x)}
            if id(x) in seen:
                return {"t": "cycle"}
            seen.add(id(x))
            try:
                if isinstance(x, tuple) and hasattr(t, "_fields"):
                    return items("tuple", list(x), depth, seen, qual(t))
                if isinstance(x, (list, tuple, collections.deque)):
                    return items("tuple" if isinstance(x, tuple) else "list", list(x), depth, seen)
                if isinstance(x, (set, frozenset, collections.abc.KeysView)):
                    return unordered("set", x, depth, seen)
                if isinstance(x, collections.abc.ValuesView):
                    return items("list", list(x), depth, seen)
                if isinstance(x, collections.abc.Mapping):
                    entries = [[ser(k, depth + 1, seen), ser(v, depth + 1, seen)] for k, v in list(x.items())[:MAX_ITEMS]]
                    entries.sort(key=lambda e: canonical(e[0]))
                    return {"t": "dict", "v": entries}
                if inspect.isgenerator(x) or isinstance(x, collections.abc.Iterator):
                    return {"t": "iterator", "class": qual(t)}
                if callable(x) and hasattr(x, "__qualname__"):
                    return {"t": "function", "v": x.__qualname__}
                fields = fields_of(x)
                if fields:
                    return {
                        "t": "object",
                        "class": qual(t),
                        "v": {k: ser(v, depth + 1, seen) for k, v in sorted(fields.items())},
                    }
                return {"t": "repr", "class": qual(t), "v": ADDRESS.sub("", repr(x))[:MAX_TEXT]}
            finally:
                seen.discard(id(x))
        except Exception as e:  # a property or __repr__ of the code under test that raises
            return {"t": "unserialisable", "class": qual(t), "error": qual(type(e))}

    def raised(e):
        return {"t": "raised", "type": qual(type(e)), "message": str(e)[:300]}

    def matches(pattern, text):
        return re.search(pattern, text) is not None

    def count_equal(a, b):
        return collections.Counter(list(a)) == collections.Counter(list(b))

    BINARY = {
        "==": operator.eq,
        "!=": operator.ne,
        "<": operator.lt,
        "<=": operator.le,
        ">": operator.gt,
        ">=": operator.ge,
        "in": lambda a, b: a in b,
        "not in": lambda a, b: a not in b,
        "is": operator.is_,
        "is not": operator.is_not,
        "isinstance": isinstance,
        "not isinstance": lambda a, b: not isinstance(a, b),
        "regex": lambda a, b: matches(b, a),
        "not regex": lambda a, b: not matches(b, a),
        "countEqual": count_equal,
        "almostEqual": lambda a, b: round(abs(a - b), 7) == 0,
        "notAlmostEqual": lambda a, b: round(abs(a - b), 7) != 0,
    }
    UNARY = {
        "truthy": bool,
        "falsy": operator.not_,
        "isNone": lambda v: v is None,
        "isNotNone": lambda v: v is not None,
    }

    def outcome(e):
        return type(e).__name__ in OUTCOMES or isinstance(e, (KeyboardInterrupt, SystemExit))

    class Broken:
        """A table row whose values raised when the module was loaded: the probe records that instead."""

        def __init__(self, error):
            self.error = error

        def __repr__(self):
            return "broken"

    def broken_in(args, kwargs):
        for value in list(args) + list(kwargs.values()):
            if isinstance(value, Broken):
                return value
        return None

    def is_pipe(candidate, inode):
        try:
            st = os.stat(candidate)
        except OSError:
            return False
        return (st.st_mode & 0o170000) == 0o010000 and st.st_ino == inode

    def channel_path():
        """In gagar's sandbox the channel is `/proc/self/fd/N`, a pipe only the trusted runner reads,
        whose inode it names in GAGAR_GUARD_PIPE; a process that did not inherit the pipe (a launcher's
        child) finds it in an ancestor. Any other path is a file."""
        match = re.fullmatch(r"/proc/self/fd/(\d+)", path)
        inode = int(environ.get("GAGAR_GUARD_PIPE", "-1") or -1)
        if not match or inode < 0 or is_pipe(path, inode):
            return path
        pid = os.getppid()
        while pid > 1:
            candidate = "/proc/%d/fd/%s" % (pid, match.group(1))
            if is_pipe(candidate, inode):
                return candidate
            try:
                with open("/proc/%d/stat" % pid, "rb") as f:
                    stat = f.read()
                pid = int(stat[stat.rfind(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                break
        return path

    class Probe:
        def __init__(self):
            self.fd = None
            self.probe = None
            self.instance = ""
            self.counts = {}

        def emit(self, record):
            record["gp"] = 1
            line = canonical(record)
            if len(line) > MAX_RECORD:
                for field in ("v", "e"):
                    if field in record and len(canonical(record[field])) > MAX_RECORD // 4:
                        text = canonical(record[field])
                        record[field] = {"t": "digest", "sha": sha(text), "head": text[:300]}
                line = canonical(record)
            if self.fd is None:
                self.fd = os.open(channel_path(), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            write(self.fd, (line + "\n").encode("utf-8", "surrogatepass"))

        def enter(self, probe_id):
            current = environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0].split("::")[-1]
            self.probe = probe_id
            self.instance = current[current.index("["):] if "[" in current else ""
            self.counts = {}

        def end(self, error):
            self.emit({"p": self.probe, "i": self.instance, "end": {"t": "ok"} if error is None else raised(error)})
            self.probe = None

        def full(self, key):
            """Past MAX_OCCURRENCES observations of `key` in this run (or outside a probe): count, record nothing."""
            if self.probe is None:
                return True
            n = self.counts.get(key, 0)
            if n < MAX_OCCURRENCES:
                return False
            self.counts[key] = n + 1
            return True

        def record(self, key, value, held, expected=None):
            if self.probe is None:
                return
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
            record = {"p": self.probe, "i": self.instance, "k": key, "n": n, "v": value, "h": held}
            if expected is not None:
                record["e"] = expected
            self.emit(record)

        def probe_test(self, probe_id):
            def wrap(fn):
                if inspect.iscoroutinefunction(fn):

                    @functools.wraps(fn)
                    async def run_async(*args, **kwargs):
                        self.enter(probe_id)
                        broken = broken_in(args, kwargs)
                        if broken:
                            return self.end(broken.error)
                        try:
                            await fn(*args, **kwargs)
                        except BaseException as e:
                            self.end(e)
                            if outcome(e):
                                raise
                            return
                        self.end(None)

                    return run_async

                @functools.wraps(fn)
                def run(*args, **kwargs):
                    self.enter(probe_id)
                    broken = broken_in(args, kwargs)
                    if broken:
                        return self.end(broken.error)
                    try:
                        fn(*args, **kwargs)
                    except BaseException as e:
                        self.end(e)
                        if outcome(e):
                            raise
                        return
                    self.end(None)

                return run

            return wrap

        @staticmethod
        def table(rows, width):
            try:
                return list(rows())
            except Exception as e:
                broken = Broken(e)
                return [tuple([broken] * width) if width > 1 else broken]

        @staticmethod
        def evaluate(thunk):
            try:
                return True, thunk()
            except Exception as e:
                return False, e

        @staticmethod
        def holds(test, *values):
            """Whether the assertion held; None when the comparison itself raised."""
            try:
                return bool(test(*values))
            except Exception:
                return None

        def check(self, key, op, actual, expected):
            a_ok, a = self.evaluate(actual)
            e_ok, e = self.evaluate(expected)
            if self.full(key):
                return
            held = self.holds(BINARY[op], a, e) if a_ok and e_ok else False
            self.record(key, ser(a) if a_ok else raised(a), held, ser(e) if e_ok else raised(e))

        def value(self, key, op, thunk):
            ok, v = self.evaluate(thunk)
            if self.full(key):
                return
            held = self.holds(UNARY[op], v) if ok else False
            self.record(key, ser(v) if ok else raised(v), held)

        def operands(self, key, op, left, right):
            a_ok, a = self.evaluate(left)
            b_ok, b = self.evaluate(right)
            if self.full(key):
                return
            held = self.holds(BINARY[op], a, b) if a_ok and b_ok else False
            values = [ser(a) if a_ok else raised(a), ser(b) if b_ok else raised(b)]
            self.record(key, {"t": "operands", "v": values}, held)

        def call(self, key, expected, fn, *args, **kwargs):
            try:
                result = fn(*args, **kwargs)
            except Exception as e:
                if not self.full(key):
                    self.record(key, raised(e), self.is_expected(e, expected))
                return None
            if not self.full(key):
                self.record(key, {"t": "returned", "v": ser(result)}, False)
            return None

        @staticmethod
        def is_expected(error, expected):
            ok, types = Probe.evaluate(expected)
            try:
                return bool(ok and isinstance(error, types))
            except TypeError:
                return None

        def raises(self, key, expected=None):
            return Raises(self, key, expected)

        def warns(self, key):
            return Warns(self, key)

    class Raises:
        """Stands for pytest.raises / assertRaises: records what the block raised, and swallows it."""

        def __init__(self, owner, key, expected):
            self.owner, self.key, self.expected = owner, key, expected
            self.value = self.type = self.tb = None

        def __enter__(self):
            return self

        def __exit__(self, et, ev, tb):
            if et is None:
                self.owner.record(self.key, {"t": "returned", "v": {"t": "none"}}, False)
                return False
            if outcome(ev) or not isinstance(ev, Exception):
                return False
            self.value, self.type, self.tb = ev, et, tb
            held = Probe.is_expected(ev, self.expected) if self.expected else None
            self.owner.record(self.key, raised(ev), held)
            return True

        @property
        def exception(self):
            return self.value

        @property
        def typename(self):
            return self.type.__name__ if self.type else None

        def match(self, pattern):
            return self.value is not None and matches(pattern, str(self.value))

    class Warns:
        """Stands for pytest.warns / assertWarns: records the categories warned in the block."""

        def __init__(self, owner, key):
            self.owner, self.key = owner, key
            self.catcher = warnings.catch_warnings(record=True)
            self.list = []

        def __enter__(self):
            self.list = self.catcher.__enter__()
            warnings.simplefilter("always")
            return self.list

        def __exit__(self, et, ev, tb):
            self.catcher.__exit__(et, ev, tb)
            categories = sorted({qual(w.category) for w in self.list})
            self.owner.record(self.key, {"t": "warnings", "v": categories}, bool(categories))
            return False

    return Probe()


_gagar_probe = _gagar_probe_helper()
del _gagar_probe_helper
