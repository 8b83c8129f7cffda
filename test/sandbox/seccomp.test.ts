import { describe, expect, it } from 'vitest';
import { assemble, sandboxFilter } from '../../src/sandbox/seccomp.js';

/** Runs the classic BPF program on one (arch, nr, args[0]) call, as the kernel would. */
function verdict(program: Buffer, arch: number, nr: number, arg0 = 0): number {
  // struct seccomp_data as 32-bit words: nr, arch, instruction_pointer (2), args[0] low, high, …
  const data = [nr, arch, 0, 0, arg0, 0];
  let pc = 0;
  let accumulator = 0;
  for (let steps = 0; steps < 200; steps++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) accumulator = data[k / 4] as number;
    else if (code === 0x15) pc += accumulator === k ? jt : jf;
    else if (code === 0x35) pc += accumulator >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
    pc += 1;
  }
  throw new Error('no verdict');
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050000 + 38;
const EAFNOSUPPORT = 0x00050000 + 97;
const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const ARM = 0x40000028;
/** AF_UNIX, AF_INET, AF_INET6, AF_NETLINK. */
const ALLOWED = [1, 2, 10, 16];
/** AF_PACKET, AF_VSOCK, AF_BLUETOOTH, AF_ALG, AF_XDP, AF_CAN, AF_TIPC, AF_KEY, AF_RDS, AF_X25, AF_QIPCRTR, and out of range. */
const REFUSED = [17, 40, 31, 38, 44, 29, 30, 15, 21, 9, 42, 0, 46, 255, 0xffffffff];

describe('the sandbox seccomp filter', () => {
  const program = assemble(sandboxFilter());

  it('refuses add_key, request_key and keyctl on x86_64, aarch64, i386 and arm, and every x32 call', () => {
    for (const nr of [248, 249, 250, 0x40000000 + 250, 0x40000000, 0x40000000 + 41])
      expect(verdict(program, X86_64, nr)).toBe(EPERM);
    for (const nr of [217, 218, 219]) expect(verdict(program, AARCH64, nr)).toBe(EPERM);
    for (const nr of [286, 287, 288]) expect(verdict(program, I386, nr)).toBe(EPERM);
    for (const nr of [309, 310, 311]) expect(verdict(program, ARM, nr)).toBe(EPERM);
  });

  it('allows everything else, the same numbers on the other architectures included', () => {
    for (const nr of [0, 1, 59, 217, 218, 219, 251, 42, 49]) expect(verdict(program, X86_64, nr)).toBe(ALLOW);
    for (const nr of [63, 64, 221, 248, 249, 250, 41, 53]) expect(verdict(program, AARCH64, nr)).toBe(ALLOW);
    for (const nr of [250, 41, 53, 198, 199]) expect(verdict(program, I386, nr, 40)).toBe(ALLOW);
    expect(verdict(program, 0xc00000f3, 198, 40)).toBe(ALLOW);
  });

  it('lets socket() and socketpair() make AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK sockets only', () => {
    const calls: Array<[number, number[]]> = [
      [X86_64, [41, 53]],
      [AARCH64, [198, 199]],
      [I386, [359, 360]],
      [ARM, [281, 288]],
    ];
    for (const [arch, numbers] of calls)
      for (const nr of numbers) {
        for (const family of ALLOWED) expect(verdict(program, arch, nr, family)).toBe(ALLOW);
        for (const family of REFUSED)
          expect(verdict(program, arch, nr, family), `${arch} ${nr} ${family}`).toBe(EAFNOSUPPORT);
      }
  });

  it('has no io_uring (IORING_OP_SOCKET) and no i386 socketcall', () => {
    for (const arch of [X86_64, AARCH64, I386, ARM])
      for (const nr of [425, 426, 427]) expect(verdict(program, arch, nr)).toBe(ENOSYS);
    expect(verdict(program, I386, 102, 40)).toBe(ENOSYS);
    expect(verdict(program, ARM, 102, 40)).toBe(ENOSYS);
  });
});
