import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A seccomp filter for bubblewrap (`--seccomp <fd>`: classic BPF, struct sock_filter[]) refusing the
 * kernel keyring calls: bubblewrap gives the sandbox no keyring of its own, so without this the
 * session keyring of the process that started issueloop (Kerberos, AFS tickets) is readable inside
 * (found by the security review). Also refuses every x32-ABI call on x86_64, the usual way round an
 * x86_64 syscall filter.
 */

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
/** add_key, request_key, keyctl. */
const KEYRING_CALLS = { x86_64: [248, 249, 250], aarch64: [217, 218, 219] } as const;
const EPERM = 1;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
/** Offsets in struct seccomp_data. */
const NR = 0;
const ARCH = 4;

type Target = 'allow' | 'deny' | number;
interface Instruction {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
}

/** The program as instructions with symbolic jump targets, resolved by `assemble`. */
export function keyringFilter(): Instruction[] {
  const program: Instruction[] = [];
  const emit = (instruction: Instruction) => program.push(instruction);
  emit({ code: BPF_LD_W_ABS, k: ARCH });
  // Jumps forward only: targets are filled in once the next block's index is known.
  const x86 = program.length;
  emit({ code: BPF_JEQ_K, k: AUDIT_ARCH_X86_64, jt: x86 + 1, jf: -1 });
  emit({ code: BPF_LD_W_ABS, k: NR });
  emit({ code: BPF_JGE_K, k: X32_SYSCALL_BIT, jt: 'deny', jf: program.length + 1 });
  KEYRING_CALLS.x86_64.forEach((nr, i, all) => {
    emit({ code: BPF_JEQ_K, k: nr, jt: 'deny', jf: i === all.length - 1 ? 'allow' : program.length + 1 });
  });
  (program[x86] as Instruction).jf = program.length;
  emit({ code: BPF_JEQ_K, k: AUDIT_ARCH_AARCH64, jt: program.length + 1, jf: 'allow' });
  emit({ code: BPF_LD_W_ABS, k: NR });
  KEYRING_CALLS.aarch64.forEach((nr, i, all) => {
    emit({ code: BPF_JEQ_K, k: nr, jt: 'deny', jf: i === all.length - 1 ? 'allow' : program.length + 1 });
  });
  return program;
}

/** struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in host byte order, with allow/deny last. */
export function assemble(program: readonly Instruction[]): Buffer {
  const allow = program.length;
  const deny = allow + 1;
  const buffer = Buffer.alloc((program.length + 2) * 8);
  const offset = (from: number, target: Target | undefined): number => {
    if (target === undefined) return 0;
    const index = target === 'allow' ? allow : target === 'deny' ? deny : target;
    const jump = index - (from + 1);
    if (jump < 0 || jump > 255) throw new Error(`seccomp: jump from ${from} to ${index} out of range`);
    return jump;
  };
  const write = (at: number, code: number, jt: number, jf: number, k: number) => {
    buffer.writeUInt16LE(code, at * 8);
    buffer.writeUInt8(jt, at * 8 + 2);
    buffer.writeUInt8(jf, at * 8 + 3);
    buffer.writeUInt32LE(k >>> 0, at * 8 + 4);
  };
  program.forEach((instruction, i) => {
    write(i, instruction.code, offset(i, instruction.jt), offset(i, instruction.jf), instruction.k);
  });
  write(allow, BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW);
  write(deny, BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM);
  return buffer;
}

let written: string | undefined;

/** The compiled filter in a file of its own (read by bwrap through a fresh descriptor per command). */
export function seccompFilterFile(): string {
  if (written === undefined) {
    // In a directory of our own: a predictable name in /tmp could be another user's file or link.
    const dir = mkdtempSync(join(tmpdir(), 'issueloop-seccomp-'));
    const path = join(dir, 'filter.bpf');
    writeFileSync(path, assemble(keyringFilter()), { mode: 0o600, flag: 'wx' });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    written = path;
  }
  return written;
}
