import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSeccompFilter, deniedSyscalls, type FilterArch } from "./seccomp.ts";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003 };
/** Written out here from the kernel's tables, independently of seccomp.ts. */
const NUMBERS: Record<FilterArch, Record<string, number>> = {
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

/** Runs the classic-BPF program on one seccomp_data (nr, arch), as the kernel would. */
function evaluate(filter: Buffer, nr: number, arch: number): number {
  let acc = 0;
  for (let pc = 0; pc < filter.length / 8; ) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    pc++;
    if (code === 0x20) acc = k === 0 ? nr >>> 0 : k === 4 ? arch >>> 0 : Number.NaN;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected BPF code ${code}`);
  }
  throw new Error("fell off the end of the filter");
}

describe("seccomp filter", () => {
  for (const arch of ["x64", "arm64"] as const) {
    const filter = buildSeccompFilter(arch);
    const denied = new Set(Object.values(NUMBERS[arch]));

    it(`${arch}: denies the ptrace-like and keyring calls with EPERM`, () => {
      for (const [name, nr] of Object.entries(NUMBERS[arch])) {
        expect(deniedSyscalls(arch)).toContain(name);
        expect(evaluate(filter, nr, ARCH[arch])).toBe(EPERM);
      }
    });

    it(`${arch}: allows every other native call, and nothing of another ABI`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 1000 }), (nr) => {
          const expected = denied.has(nr) ? EPERM : ALLOW;
          expect(evaluate(filter, nr, ARCH[arch])).toBe(expected);
          // i386 numbering via int 0x80 (26 is its ptrace) must never slip through.
          expect(evaluate(filter, nr, ARCH.i386)).toBe(EPERM);
        }),
        { seed: 7, numRuns: 300 },
      );
    });
  }

  it("x64: denies the x32 ABI (its syscall numbers carry bit 30)", () => {
    const filter = buildSeccompFilter("x64");
    expect(evaluate(filter, 0x40000000 + 101, ARCH.x64)).toBe(EPERM);
    expect(evaluate(filter, 0x40000000, ARCH.x64)).toBe(EPERM);
    expect(evaluate(filter, 0, ARCH.x64)).toBe(ALLOW); // read
  });
});
