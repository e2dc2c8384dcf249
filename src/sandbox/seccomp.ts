/**
 * A classic-BPF seccomp filter for bwrap's `--seccomp FD`, built here because this host has no
 * libseccomp tools (and none may be downloaded).
 *
 * Why: inside the sandbox every process runs as the same uid, and bwrap's pid 1 (its reaper) is
 * dumpable. Code under test could PTRACE_ATTACH to it (no Yama here; measured), outlive the trusted
 * runner's kill of every other process, and rewrite /out after the runner wrote its reports: a forged
 * pass. The filter denies, with EPERM, the system calls that reach into another process or share state
 * across runs of the same uid: ptrace, process_vm_readv/writev, pidfd_getfd, kcmp, and the keyring
 * calls (add_key, request_key, keyctl). System calls of any other ABI (i386 via int 0x80, x32) are
 * denied outright: their numbers differ, and a filter that let them through would let ptrace through.
 */

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;

/** Denied system calls by number, per architecture (asm/unistd_64.h, asm-generic/unistd.h). */
const DENIED: Record<keyof typeof AUDIT_ARCH, Record<string, number>> = {
  x64: {
    ptrace: 101,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    process_vm_readv: 310,
    process_vm_writev: 311,
    kcmp: 312,
    pidfd_getfd: 438,
  },
  arm64: {
    ptrace: 117,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    process_vm_readv: 270,
    process_vm_writev: 271,
    kcmp: 272,
    pidfd_getfd: 438,
  },
};

const X32_SYSCALL_BIT = 0x40000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
// struct seccomp_data: int nr; __u32 arch; ...
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

export type FilterArch = keyof typeof AUDIT_ARCH;

/** The names the filter denies on `arch` (for docs and tests). */
export function deniedSyscalls(arch: FilterArch): string[] {
  return Object.keys(DENIED[arch]);
}

/** The architecture of this process, when the filter knows it. */
export function hostFilterArch(): FilterArch | undefined {
  return process.arch === "x64" || process.arch === "arm64" ? process.arch : undefined;
}

/** The filter as the bytes of a `struct sock_filter[]` (8 bytes per instruction, host byte order). */
export function buildSeccompFilter(arch: FilterArch): Buffer {
  const numbers = Object.values(DENIED[arch]);
  type Insn = [code: number, jt: number, jf: number, k: number];
  const prog: Insn[] = [];
  // Instruction indices: 0 load arch, 1 check arch, 2 load nr, 3 x32 check, 4.. one jeq per call,
  // then ALLOW, then DENY. Jump offsets count from the next instruction.
  const denyAt = 4 + numbers.length + 1;
  const jumpTo = (target: number, from: number) => target - (from + 1);
  prog.push([LD_W_ABS, 0, 0, OFFSET_ARCH]);
  prog.push([JEQ_K, 0, jumpTo(denyAt, 1), AUDIT_ARCH[arch]]);
  prog.push([LD_W_ABS, 0, 0, OFFSET_NR]);
  prog.push([
    JGE_K,
    arch === "x64" ? jumpTo(denyAt, 3) : 0,
    0,
    arch === "x64" ? X32_SYSCALL_BIT : 0xffffffff,
  ]);
  numbers.forEach((nr, i) => {
    const at = 4 + i;
    prog.push([JEQ_K, jumpTo(denyAt, at), 0, nr]);
  });
  prog.push([RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  prog.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const out = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    if (jt > 255 || jf > 255) throw new Error("seccomp filter jump out of range");
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
