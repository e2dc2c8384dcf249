"""gagar's mount service: the verifier's trusted host-side helper for its own mounts (runs as root).

    python3 -I -S mount-service.py

One process per verifier session (mount-service.ts starts it on first use). It reads requests, one JSON
object per line on stdin, and answers each in order with one line on stdout: {"ok": true} or
{"ok": false, "error": "..."}. It exits when stdin closes, and with the verifier if that dies.

Why a service: every candidate gets a tmpfs and an overlay and loses them afterwards. With util-linux,
each of these is a process, and Node's spawn blocks its event loop while it forks; as system calls
from a process that is already up they cost next to nothing.

Requests ("op" and its fields):
  tmpfs    target, size, inodes         size- and inode-limited tmpfs, mode 0700, nosuid, nodev
  overlay  target, lower, upper, work   overlayfs (metacopy=on), nosuid, nodev
  umount   targets                      in order; a busy one is detached lazily; errors are ignored
  idmap    source, target, uid          read-only view of source in which root-owned files appear as
                                        owned by uid (open_tree, mount_setattr, move_mount: Linux 5.12+;
                                        util-linux 2.38 cannot make such mounts)
"""

import ctypes
import json
import os
import sys

SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
SYS_MOUNT_SETATTR = 442
OPEN_TREE_CLONE = 0x1
OPEN_TREE_CLOEXEC = os.O_CLOEXEC
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_RECURSIVE = 0x8000
AT_SYMLINK_NOFOLLOW = 0x100
MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4
MOUNT_ATTR_IDMAP = 0x100000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
CLONE_NEWUSER = 0x10000000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MNT_DETACH = 0x2
PR_SET_PDEATHSIG = 1
SIGKILL = 9


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def check(result, what):
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, "%s: %s" % (what, os.strerror(errno)))
    return result


def mount(source, target, fstype, flags, data):
    check(libc.mount(source.encode(), target.encode(), fstype.encode(), flags, data.encode()),
          "mount %s" % fstype)


def no_separators(*values):
    """Mount options are comma-separated and overlay's lowerdir takes ':' lists."""
    for value in values:
        if any(c in value for c in ",:\\") or any(c.isspace() for c in value):
            raise ValueError("path %r contains ',', ':', '\\' or whitespace" % value)


def tmpfs(req):
    size, inodes = int(req["size"]), int(req["inodes"])
    mount("gagar-ws", req["target"], "tmpfs", MS_NOSUID | MS_NODEV,
          "size=%d,nr_inodes=%d,mode=0700" % (size, inodes))


def overlay(req):
    lower, upper, work = req["lower"], req["upper"], req["work"]
    no_separators(lower, upper, work)
    mount("gagar-ovl", req["target"], "overlay", MS_NOSUID | MS_NODEV,
          "lowerdir=%s,upperdir=%s,workdir=%s,metacopy=on" % (lower, upper, work))


def umount(req):
    for target in req["targets"]:
        path = target.encode()
        if libc.umount2(path, 0) != 0:
            libc.umount2(path, MNT_DETACH)


def user_namespace(uid):
    """An fd of a user namespace in which uid 0 and gid 0 map to `uid` outside. A child process makes
    the namespace and waits while we write its maps and open it, then exits."""
    made_r, made_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(made_r)
            os.close(done_w)
            ok = libc.unshare(CLONE_NEWUSER) == 0
            os.write(made_w, b"1" if ok else b"0")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    os.close(made_w)
    os.close(done_r)
    try:
        if os.read(made_r, 1) != b"1":
            raise OSError("unshare(CLONE_NEWUSER) failed in the helper's child")
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (pid, name), "w") as f:
                f.write("0 %d 1\n" % uid)
        return os.open("/proc/%d/ns/user" % pid, os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(done_w)
        os.close(made_r)
        os.waitpid(pid, 0)


def idmap(req):
    uid = int(req["uid"])
    userns = user_namespace(uid)
    try:
        tree = check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, req["source"].encode(),
                                  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW),
                     "open_tree")
        try:
            attr = MountAttr(MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0,
                             userns)
            check(libc.syscall(SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH | AT_RECURSIVE, ctypes.byref(attr),
                               ctypes.sizeof(attr)), "mount_setattr")
            check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, req["target"].encode(),
                               MOVE_MOUNT_F_EMPTY_PATH), "move_mount")
        finally:
            os.close(tree)
    finally:
        os.close(userns)


OPS = {"tmpfs": tmpfs, "overlay": overlay, "umount": umount, "idmap": idmap}


def main():
    # Nothing of ours may outlive the verifier (it also closes our stdin when it exits normally).
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    out = sys.stdout
    for line in sys.stdin:
        try:
            req = json.loads(line)
            op = OPS.get(req.get("op"))
            if op is None:
                raise ValueError("unknown op %r" % req.get("op"))
            op(req)
            answer = {"ok": True}
        except (OSError, ValueError, KeyError, TypeError) as e:
            answer = {"ok": False, "error": str(e)}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
