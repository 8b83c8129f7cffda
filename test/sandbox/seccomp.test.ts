import { describe, expect, it } from 'vitest';
import { assemble, keyringFilter } from '../../src/sandbox/seccomp.js';

/** Runs the classic BPF program on one (arch, nr) pair, as the kernel would. */
function verdict(program: Buffer, arch: number, nr: number): number {
  const data = [nr, arch];
  let pc = 0;
  let accumulator = 0;
  for (let steps = 0; steps < 100; steps++) {
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

describe('the keyring seccomp filter', () => {
  const program = assemble(keyringFilter());

  it('refuses add_key, request_key and keyctl on x86_64 and aarch64, and every x32 call', () => {
    for (const nr of [248, 249, 250, 0x40000000 + 250, 0x40000000])
      expect(verdict(program, 0xc000003e, nr)).toBe(EPERM);
    for (const nr of [217, 218, 219]) expect(verdict(program, 0xc00000b7, nr)).toBe(EPERM);
  });

  it('allows everything else, the same numbers on the other architecture included', () => {
    for (const nr of [0, 1, 59, 217, 218, 219, 251]) expect(verdict(program, 0xc000003e, nr)).toBe(ALLOW);
    for (const nr of [63, 64, 221, 248, 249, 250]) expect(verdict(program, 0xc00000b7, nr)).toBe(ALLOW);
    expect(verdict(program, 0x40000003, 250)).toBe(ALLOW);
  });
});
