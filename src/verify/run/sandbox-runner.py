"""gagar's trusted runner, executed inside the sandbox as its first process (see test-run.ts).

Why a runner at all: everything the candidate's code can write can be forged while it runs
(security.md §6: a daemonized child rewrote the JUnit report before the test runner exited). So:

* The test runner never writes its report to a file. `{junit}` is `/proc/self/fd/3`, the write end of a
  pipe whose read end only this runner holds. This process makes itself non-dumpable first, so other
  processes of the same uid can neither ptrace it nor open its /proc/PID/fd entries. Anything else that
  writes to the pipe (a child that inherited fd 3) adds bytes to the stream; the verifier then sees two
  documents or broken XML instead of a clean forgery.
* After each test command exits, every other process in the sandbox is SIGKILLed (kill(-1) reaches all
  processes of this uid in the sandbox's pid namespace except pid 1 and us), and we wait until they are
  gone. Daemons cannot outlive their run, nor touch the next run.
* Only then are reports and status.json written to /out, which is emptied first: nothing the candidate
  put there survives, and status.json (written last) is proof that the reports are complete.
* The candidate's code runs as our uid, so it can SIGKILL us and then write /out itself. status.json
  therefore carries a per-run token that only we ever hold: it comes on our stdin, which we read to the
  end and close before any other process exists. Catchable signals are ignored, so the only way to stop
  us is SIGKILL/SIGSTOP, which the verifier sees as a non-zero exit or a timeout.

The sandbox may be started before the candidate is known (the verifier keeps one ready per task): the
runner then waits on stdin for the request (token, bytecode directories, patch; runner-plan.ts). Empty
stdin means the sandbox was not needed, and the runner exits without doing anything.

It also applies the patch with `git apply` before any candidate code exists in the sandbox, and removes
bytecode from the directories the patch wrote. Standard library only; runs with python3 -I -S -B.

Startup is paid once per candidate, so the runner imports only builtin modules: json, shutil,
threading, ctypes and signal are slow to import by comparison (python3 -X importtime shows it; for
prctl it uses _ctypes directly, for signal handlers _signal, which skips signal's enum). Hence the plan is a
NUL-separated token list (runner-plan.ts writes it), status.json comes from a small encoder, and the
report pipe and the child's exit are watched with poll() on a pidfd instead of a reader thread.
"""

import _ctypes
import _signal as signal
import os
import select
import sys
import time

PR_SET_DUMPABLE = 4
OUTPUT_TAIL = 8192
PLAN_MAGIC = "gagar-plan-3"
GUARD_CAP = 1 << 20
REQUEST_MAGIC = b"gagar-go-1"
READY_LINE = b"gagar-runner: waiting for the candidate\n"
RUN_MARK = "gagar-runner: run "
DRAIN_SEC = 5
IGNORED_SIGNALS = [
    getattr(signal, name)
    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGPIPE", "SIGXFSZ",
                 "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGVTALRM", "SIGPROF")
    if hasattr(signal, name)
]


def main():
    # argv: PLAN WORKSPACE OUT. Paths come as arguments, not inside the plan, so that a backend without
    # mounts (unsandboxed) can rewrite them to the host paths they stand for.
    with open(sys.argv[1], "rb") as f:
        plan = parse_plan(f.read().decode("utf-8"))
    plan["workspace"] = sys.argv[2]
    plan["outDir"] = sys.argv[3]
    dumpable = set_nondumpable()
    for sig in IGNORED_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    os.write(1, READY_LINE)
    request = read_request()
    if request is None:
        return
    token, plan["bytecodeDirs"], plan["patch"] = request
    # The task's timeout counts from here, as the sandbox's does (plus a margin for what follows it).
    deadline = time.monotonic() + plan["timeoutMs"] / 1000 if plan["timeoutMs"] > 0 else None
    status = {"version": 1, "token": token, "dumpable": dumpable, "apply": None, "runs": [], "removedBytecode": 0}
    close_inherited_fds()
    # Children start here (posix_spawn has no chdir); the runner itself only uses absolute paths.
    os.chdir(plan["workspace"])
    reports = []
    guards = []
    if plan["patch"]:
        status["apply"] = apply_patch(plan)
        if status["apply"]["exitCode"] != 0:
            finish(plan, status, reports, guards)
            return
    status["removedBytecode"] = remove_bytecode(plan["workspace"], plan["bytecodeDirs"])
    for run in plan["runs"]:
        result, report, guard = run_one(plan, run, deadline)
        status["runs"].append(result)
        reports.append(report)
        guards.append(guard)
        if result["timedOut"]:
            break
    finish(plan, status, reports, guards)


def parse_plan(text):
    """Reads the token list written by runner-plan.ts (see there for the layout)."""
    tokens = text.split("\0")
    pos = [0]

    def take():
        if pos[0] >= len(tokens):
            raise ValueError("runner plan ends early")
        pos[0] += 1
        return tokens[pos[0] - 1]

    def take_list():
        return [take() for _ in range(int(take()))]

    if take() != PLAN_MAGIC:
        raise ValueError("not a gagar runner plan")
    plan = {
        "killOthers": take() == "1",
        "reportCapBytes": int(take()),
        "timeoutMs": int(take()),
        "graceMs": int(take()),
        "applyArgv": take_list(),
        "runs": [],
    }
    for _ in range(int(take())):
        plan["runs"].append({"label": take(), "reportFd": int(take()), "guardFd": int(take()), "argv": take_list()})
    if pos[0] != len(tokens):
        raise ValueError("runner plan has trailing tokens")
    return plan


def set_nondumpable():
    """Returns the dumpable flag after the attempt (0 is what we want)."""
    try:
        prctl = libc_function("prctl")
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    except Exception:
        return -1


class CInt(_ctypes._SimpleCData):
    _type_ = "i"


class CLong(_ctypes._SimpleCData):
    _type_ = "l"


class CFunction(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = CInt


def libc_function(name):
    """A C function of the process (libc) taking up to five long arguments and returning an int: what
    ctypes.CDLL(None).<name> gives, without importing the ctypes package."""
    function = CFunction(_ctypes.dlsym(_ctypes.dlopen(None), name))
    function.argtypes = (CLong,) * 5
    return function


def read_request():
    """Reads stdin to its end and closes it: (token, bytecode dirs, patch bytes or None), or None when
    the verifier sent nothing (a sandbox started ahead and not needed)."""
    data = bytearray()
    while True:
        chunk = os.read(0, 1 << 20)
        if not chunk:
            break
        data.extend(chunk)
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return parse_request(bytes(data))


def parse_request(data):
    """The layout is in runner-plan.ts: NUL-separated fields, then the patch as the unparsed tail."""
    if not data:
        return None
    pos = 0

    def take():
        nonlocal pos
        end = data.index(b"\0", pos)
        field, pos = data[pos:end], end + 1
        return field

    if take() != REQUEST_MAGIC:
        raise ValueError("not a gagar runner request")
    token = take().decode("ascii")
    dirs = [take().decode("utf-8") for _ in range(int(take()))]
    has_patch = take() == b"1"
    return token, dirs, data[pos:] if has_patch else None


def close_inherited_fds():
    """Nothing but stdio may reach the candidate's processes (the sandbox may leave its status fd open)."""
    os.closerange(3, 65536)


def spawn(argv, env, dup2, own_group=False):
    """posix_spawn (vfork-fast, unlike fork of this interpreter): stdin from /dev/null, the pipes in
    `dup2` ({target fd: source fd}) in place, and the ignored signals back at their defaults. With
    `own_group`, the child leads a process group of its own, which an interrupt reaches as a whole."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0)]
    for target, source in dup2.items():
        actions.append((os.POSIX_SPAWN_DUP2, source, target))
    extra = {"setpgroup": 0} if own_group else {}
    return os.posix_spawnp(argv[0], argv, env, file_actions=actions, setsigdef=IGNORED_SIGNALS, **extra)


def apply_patch(plan):
    """Runs git apply with its output captured (capped); no candidate code exists yet. The patch goes
    through a private file that is gone before any candidate code runs."""
    env = dict(os.environ)
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CEILING_DIRECTORIES": "/"})
    started = time.monotonic()
    path = os.path.join(os.environ.get("TMPDIR") or "/tmp", ".gagar-patch-%s.diff" % os.urandom(8).hex())
    write_new(path, plan["patch"], 0o600)
    argv = plan["applyArgv"] + [path]
    read_end, write_end = pipe_above(2)
    try:
        pid = spawn(argv, env, {1: write_end, 2: write_end})
    except OSError as e:
        os.close(read_end)
        os.close(write_end)
        os.unlink(path)
        return {"exitCode": 127, "output": "cannot run %r: %s" % (argv[0], e), "durationMs": 0}
    os.close(write_end)
    output = bytearray()
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        output.extend(chunk)
        del output[:-OUTPUT_TAIL]
    os.close(read_end)
    _, wait_status = os.waitpid(pid, 0)
    os.unlink(path)
    return {
        "exitCode": os.waitstatus_to_exitcode(wait_status),
        "output": bytes(output).decode("utf-8", "replace"),
        "durationMs": round((time.monotonic() - started) * 1000),
    }


def pipe_above(low):
    """A close-on-exec pipe whose ends are both above `low`, so that dup2 onto fds <= low never hits one."""
    ends = []
    for fd in os.pipe():
        held = []  # kept open while dup() climbs past them
        while fd <= low:
            held.append(fd)
            fd = os.dup(fd)
        for old in held:
            os.close(old)
        ends.append(fd)
    return ends[0], ends[1]


def remove_bytecode(workspace, dirs):
    """Deletes __pycache__ and *.pyc/*.pyo in the directories the patch wrote (the snapshot has none)."""
    removed = 0
    for rel in dirs:
        base = os.path.join(workspace, rel) if rel else workspace
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            path = os.path.join(base, name)
            if name == "__pycache__" and not os.path.islink(path):
                remove_tree(path)
                removed += 1
            elif name.endswith((".pyc", ".pyo")):
                try:
                    os.unlink(path)
                    removed += 1
                except OSError:
                    pass
    return removed


class Channel:
    """The read end of a pipe only this runner holds, drained into a capped buffer. The test command gets
    the write end at fd `target`: the JUnit report, or the guard's records (guards/)."""

    def __init__(self, target, cap):
        self.target = target
        self.cap = cap
        self.read_end, self.write_end = pipe_above(target)
        self.data = bytearray()
        self.truncated = False
        self.open = True

    def read_some(self):
        try:
            chunk = os.read(self.read_end, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.open = False
            return
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[: max(room, 0)]
        self.data.extend(chunk)


def run_one(plan, run, deadline):
    channels = [Channel(run["reportFd"], plan["reportCapBytes"])]
    if run["guardFd"] > 0:
        channels.append(Channel(run["guardFd"], GUARD_CAP))
    # A line per run, then the run's stderr merged into its stdout in order: the verifier keeps the tail
    # of this stream as the verdict's diagnostics (output-tail.ts).
    os.write(1, ("\n%s%s\n" % (RUN_MARK, run["label"])).encode("utf-8", "replace"))
    started = time.monotonic()
    timed_out = False
    dup2 = {c.target: c.write_end for c in channels}
    dup2[2] = 1
    env = os.environ
    if run["guardFd"] > 0:
        # How a guard tells the guard pipe from another descriptor of the same number, and finds it in an
        # ancestor when its own process did not inherit it (node:test's per-file children): its inode. The
        # report pipe's, so that a guard knows writes to the results from other writes.
        env = dict(os.environ, GAGAR_GUARD_PIPE=str(os.fstat(channels[1].write_end).st_ino),
                   GAGAR_REPORT_PIPE=str(os.fstat(channels[0].write_end).st_ino))
    try:
        pid = spawn(run["argv"], env, dup2, own_group=True)
    except OSError as e:
        os.write(2, ("gagar runner: cannot start %r: %s\n" % (run["argv"][0], e)).encode())
        pid = None
    for c in channels:
        os.close(c.write_end)
    by_fd = {c.read_end: c for c in channels}
    poller = select.poll()
    for c in channels:
        poller.register(c.read_end, select.POLLIN)

    def drain(fd):
        channel = by_fd[fd]
        if channel.open:
            channel.read_some()
            if not channel.open:
                poller.unregister(fd)

    if pid is None:
        code = 127
    else:
        # The reports are read while the tests run (a full pipe would block them); the pidfd says when
        # the test command itself exits, whoever else still holds a pipe.
        pidfd = os.pidfd_open(pid)
        poller.register(pidfd, select.POLLIN)
        exited = False
        # Past the deadline the command's process group gets SIGINT, as a terminal's Ctrl-C (pytest then
        # writes its report of the tests that finished, also under `sh -c` or `env`), and SIGKILL graceMs
        # later; what it reported until then is kept (a run that hangs in one test, or after its tests,
        # still says how the others went).
        stop_at = deadline
        interrupted = False
        while not exited:
            wait_ms = None if stop_at is None else max(0, int((stop_at - time.monotonic()) * 1000))
            events = poller.poll(wait_ms)
            for ready, _ in events:
                if ready == pidfd:
                    exited = True
                else:
                    drain(ready)
            if not exited and stop_at is not None and time.monotonic() >= stop_at:
                timed_out = True
                signal_process(pid, signal.SIGKILL if interrupted else signal.SIGINT)
                stop_at = None if interrupted else time.monotonic() + plan["graceMs"] / 1000
                interrupted = True
        poller.unregister(pidfd)
        os.close(pidfd)
        _, wait_status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(wait_status)
    duration = round((time.monotonic() - started) * 1000)
    survivors = kill_others(plan)
    # Whatever the test command wrote is in the pipes now; once every writer is dead, EOF follows. The
    # read ends are non-blocking from here: a writer that survived kill_others must not hang the runner.
    for c in channels:
        os.set_blocking(c.read_end, False)
    deadline = time.monotonic() + DRAIN_SEC
    while any(c.open for c in channels):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready = poller.poll(left * 1000)
        if not ready:
            break
        for fd, _ in ready:
            drain(fd)
    for c in channels:
        os.close(c.read_end)
    report = channels[0]
    guard = channels[1] if len(channels) > 1 else None
    result = {
        "label": run["label"],
        "exitCode": code if code >= 0 else None,
        "signal": -code if code < 0 else None,
        "reportBytes": len(report.data),
        "reportTruncated": report.truncated,
        "channelHeld": any(c.open for c in channels),
        "survivors": survivors,
        "durationMs": duration,
        "timedOut": timed_out,
        "guardBytes": len(guard.data) if guard else None,
        "guardTruncated": guard.truncated if guard else False,
    }
    return result, bytes(report.data), bytes(guard.data) if guard else None


def signal_process(pid, sig):
    """`sig` to the process group `pid` leads (spawn's own_group), else to `pid` alone."""
    try:
        os.killpg(pid, sig)
    except OSError:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def kill_others(plan):
    """SIGKILLs every other process of the sandbox and waits until none is left; returns how many remain."""
    if not plan["killOthers"] or os.getuid() == 0:
        return 0
    me = os.getpid()
    deadline = time.monotonic() + 5
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        reap()
        alive = [p for p in live_pids() if p != me and p != 1]
        if not alive or time.monotonic() > deadline:
            return len(alive)
        time.sleep(0.005)


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def live_pids():
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]
        if state not in (b"Z", b"X"):
            pids.append(int(name))
    return pids


def finish(plan, status, reports, guards):
    out = plan["outDir"]
    os.chmod(out, 0o755)
    for entry in os.scandir(out):
        if entry.is_dir(follow_symlinks=False):
            remove_tree(entry.path)
        else:
            os.unlink(entry.path)
    for i, report in enumerate(reports):
        write_new(os.path.join(out, "report-%d.xml" % i), report)
    for i, guard in enumerate(guards):
        if guard is not None:
            write_new(os.path.join(out, "guard-%d.log" % i), guard)
    write_new(os.path.join(out, "status.json"), to_json(status).encode())


def remove_tree(path):
    """shutil.rmtree's job (never follows symlinks; makes unreadable directories readable first), without
    its import. Only ever called while no other process of the sandbox is alive."""
    try:
        os.chmod(path, 0o700)
        entries = list(os.scandir(path))
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            remove_tree(entry.path)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def to_json(value):
    """JSON for the status record (None, bools, ints, strings, lists, dicts with string keys)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + "".join(c if " " <= c and c not in '"\\' else "\\u%04x" % ord(c) for c in value) + '"'
    if isinstance(value, list):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(to_json(k) + ":" + to_json(v) for k, v in value.items()) + "}"
    raise TypeError("cannot encode %r" % type(value))


def write_new(path, data, mode=0o644):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
