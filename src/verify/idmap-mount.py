"""Mounts a read-only, idmapped view of a directory: gagar's trusted host-side helper (runs as root).

    python3 -I -S idmap-mount.py SOURCE TARGET UID

Files that SOURCE stores as owned by root (uid and gid 0) appear at TARGET as owned by UID. The verifier
uses it for the lower layer of a candidate's overlay workspace (workspace.ts), so that the sandbox's run
uid owns the repository without a `chown -R`, whose cost grows with the repository (~200 ms for 10,000
files here, because every file is copied up). util-linux 2.38's mount cannot make idmapped mounts, hence
the system calls (open_tree, mount_setattr, move_mount: Linux 5.12+) through ctypes.

Exit status 0 on success; 1 with a one-line reason on stderr otherwise (the caller falls back to chown).
"""

import ctypes
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


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def check(result, what):
    if result < 0:
        raise OSError(ctypes.get_errno(), "%s: %s" % (what, os.strerror(ctypes.get_errno())))
    return result


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


def main():
    source, target, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    userns = user_namespace(uid)
    tree = check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, source.encode(),
                              OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW),
                 "open_tree")
    attr = MountAttr(MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, userns)
    check(libc.syscall(SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH | AT_RECURSIVE, ctypes.byref(attr),
                       ctypes.sizeof(attr)), "mount_setattr")
    check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, target.encode(), MOVE_MOUNT_F_EMPTY_PATH),
          "move_mount")


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, IndexError) as e:
        sys.stderr.write("idmap-mount: %s\n" % e)
        sys.exit(1)
