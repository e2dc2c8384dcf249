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
  therefore carries a per-run token that only we ever hold: the verifier leaves it in /out/.gagar-token,
  and we read and delete it before any other process exists. Catchable signals are ignored, so the
  only way to stop us is SIGKILL/SIGSTOP, which the verifier sees as a non-zero exit or a timeout.

It also applies the patch with `git apply` before any candidate code exists in the sandbox, and removes
bytecode from the directories the patch wrote. Standard library only; runs with python3 -I -S -B.
"""

import ctypes
import json
import os
import shutil
import signal
import sys
import threading
import time

PR_SET_DUMPABLE = 4
OUTPUT_TAIL = 8192
TOKEN_FILE = ".gagar-token"
IGNORED_SIGNALS = [
    getattr(signal, name)
    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGPIPE", "SIGXFSZ",
                 "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGVTALRM", "SIGPROF")
    if hasattr(signal, name)
]


def main():
    # argv: PLAN WORKSPACE OUT [PATCH]. Paths come as arguments, not inside the plan, so that a backend
    # without mounts (unsandboxed) can rewrite them to the host paths they stand for.
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    plan["workspace"] = sys.argv[2]
    plan["outDir"] = sys.argv[3]
    plan["patch"] = sys.argv[4] if len(sys.argv) > 4 else None
    dumpable = set_nondumpable()
    for sig in IGNORED_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    token = take_token(plan["outDir"])
    status = {"version": 1, "token": token, "dumpable": dumpable, "apply": None, "runs": [], "removedBytecode": 0}
    close_inherited_fds()
    reports = []
    if plan["patch"]:
        status["apply"] = apply_patch(plan)
        if status["apply"]["exitCode"] != 0:
            finish(plan, status, reports)
            return
    status["removedBytecode"] = remove_bytecode(plan["workspace"], plan.get("bytecodeDirs", []))
    for run in plan["runs"]:
        result, report = run_one(plan, run)
        status["runs"].append(result)
        reports.append(report)
    finish(plan, status, reports)


def set_nondumpable():
    """Returns the dumpable flag after the attempt (0 is what we want)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    except Exception:
        return -1


def take_token(out):
    path = os.path.join(out, TOKEN_FILE)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        token = os.read(fd, 256).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    os.unlink(path)
    return token


def close_inherited_fds():
    """Nothing but stdio may reach the candidate's processes (the sandbox may leave its status fd open)."""
    os.closerange(3, 65536)


def apply_patch(plan):
    """Runs git apply with its output captured (capped); no candidate code exists yet."""
    env = dict(os.environ)
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CEILING_DIRECTORIES": "/"})
    argv = plan["applyArgv"] + [plan["patch"]]
    started = time.monotonic()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.dup2(write_end, 1)
            os.dup2(write_end, 2)
            devnull = os.open("/dev/null", os.O_RDONLY)
            os.dup2(devnull, 0)
            for sig in IGNORED_SIGNALS:
                signal.signal(sig, signal.SIG_DFL)
            os.chdir(plan["workspace"])
            os.execvpe(argv[0], argv, env)
        except BaseException as e:  # noqa: BLE001 - the child must never return into the runner
            os.write(2, ("cannot run %r: %s\n" % (argv[0], e)).encode())
        os._exit(127)
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
    return {
        "exitCode": os.waitstatus_to_exitcode(wait_status),
        "output": bytes(output).decode("utf-8", "replace"),
        "durationMs": round((time.monotonic() - started) * 1000),
    }


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
                shutil.rmtree(path, ignore_errors=True)
                removed += 1
            elif name.endswith((".pyc", ".pyo")):
                try:
                    os.unlink(path)
                    removed += 1
                except OSError:
                    pass
    return removed


def run_one(plan, run):
    fd = run["reportFd"]
    cap = plan["reportCapBytes"]
    read_end, write_end = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        exec_child(plan, run, read_end, write_end, fd)
    os.close(write_end)
    report = bytearray()
    state = {"truncated": False}

    def drain():
        while True:
            try:
                chunk = os.read(read_end, 65536)
            except OSError:
                return
            if not chunk:
                return
            room = cap - len(report)
            if len(chunk) > room:
                state["truncated"] = True
                chunk = chunk[: max(room, 0)]
            report.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    _, wait_status = os.waitpid(pid, 0)
    duration = round((time.monotonic() - started) * 1000)
    survivors = kill_others(plan)
    reader.join(5)
    held = reader.is_alive()
    os.close(read_end)
    code = os.waitstatus_to_exitcode(wait_status)
    result = {
        "label": run["label"],
        "exitCode": code if code >= 0 else None,
        "signal": -code if code < 0 else None,
        "reportBytes": len(report),
        "reportTruncated": state["truncated"],
        "channelHeld": held,
        "survivors": survivors,
        "durationMs": duration,
    }
    return result, bytes(report)


def exec_child(plan, run, read_end, write_end, fd):
    try:
        os.close(read_end)
        if write_end != fd:
            os.dup2(write_end, fd)
            os.close(write_end)
        os.set_inheritable(fd, True)
        devnull = os.open("/dev/null", os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        for sig in IGNORED_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        os.chdir(plan["workspace"])
        argv = run["argv"]
        os.execvp(argv[0], argv)
    except BaseException as e:  # noqa: BLE001 - the child must never return into the runner
        os.write(2, ("gagar runner: cannot start %r: %s\n" % (run["argv"][0], e)).encode())
    os._exit(127)


def kill_others(plan):
    """SIGKILLs every other process of the sandbox and waits until none is left; returns how many remain."""
    if not plan.get("killOthers") or os.getuid() == 0:
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


def finish(plan, status, reports):
    out = plan["outDir"]
    os.chmod(out, 0o755)
    clear_dir(out)
    for i, report in enumerate(reports):
        write_new(os.path.join(out, "report-%d.xml" % i), report)
    write_new(os.path.join(out, "status.json"), json.dumps(status).encode())


def clear_dir(path):
    def force(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            if not os.path.islink(target) and os.path.isdir(target):
                os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    for name in os.listdir(path):
        target = os.path.join(path, name)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target, onerror=force)
        else:
            os.unlink(target)


def write_new(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
