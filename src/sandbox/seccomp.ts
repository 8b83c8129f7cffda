import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The seccomp filter bubblewrap loads for every sandboxed command (`--seccomp <fd>`: classic BPF,
 * struct sock_filter[]). It refuses:
 * - the kernel keyring calls: bubblewrap gives the sandbox no keyring of its own, so without this the
 *   session keyring of the process that started issueloop (Kerberos, AFS tickets) is readable inside;
 * - `socket()` and `socketpair()` for every address family but AF_UNIX, AF_INET, AF_INET6 and
 *   AF_NETLINK, with EAFNOSUPPORT as a kernel without the family would: a network namespace confines
 *   none of the others (AF_VSOCK's ports are the machine's, CID 2 the hypervisor's), and no tool
 *   needs them;
 * - io_uring (ENOSYS): IORING_OP_SOCKET makes sockets without calling socket();
 * - every x32-ABI call on x86_64, and `socketcall` on i386 (its arguments are behind a pointer the
 *   filter cannot read).
 * The 32-bit ABIs of an x86_64 or aarch64 kernel (i386, arm) get the same rules with their own
 * numbers, since any process can enter them. Other architectures are not filtered.
 */

interface Abi {
  arch: number;
  /** x86_64: numbers with this bit are x32 calls. */
  x32Bit?: number;
  /** add_key, request_key, keyctl. */
  keyring: readonly number[];
  /** socket, socketpair. */
  socket: readonly number[];
  /** io_uring_setup, io_uring_enter, io_uring_register; socketcall where there is one. */
  missing: readonly number[];
}

const IO_URING = [425, 426, 427];
export const ABIS: readonly Abi[] = Object.freeze([
  { arch: 0xc000003e, x32Bit: 0x40000000, keyring: [248, 249, 250], socket: [41, 53], missing: IO_URING },
  { arch: 0xc00000b7, keyring: [217, 218, 219], socket: [198, 199], missing: IO_URING },
  { arch: 0x40000003, keyring: [286, 287, 288], socket: [359, 360], missing: [...IO_URING, 102] },
  { arch: 0x40000028, keyring: [309, 310, 311], socket: [281, 288], missing: [...IO_URING, 102] },
]);

/** AF_UNIX, AF_INET, AF_INET6, AF_NETLINK. */
export const ALLOWED_FAMILIES: readonly number[] = Object.freeze([1, 2, 10, 16]);

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
/** Offsets in struct seccomp_data; args[0]'s low half on a little-endian machine (all of the above). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

/** A jump target: a label, or one of the verdicts `assemble` appends. */
type Target = 'allow' | 'eperm' | 'enosys' | 'eafnosupport' | `@${string}`;
export type Instruction = { code: number; k: number; jt?: Target; jf?: Target } | { label: `@${string}` };

/** The program, with symbolic jump targets resolved by `assemble`. */
export function sandboxFilter(abis: readonly Abi[] = ABIS): Instruction[] {
  const program: Instruction[] = [{ code: BPF_LD_W_ABS, k: ARCH }];
  abis.forEach((abi, i) => {
    const next = `@abi${i + 1}` as const;
    program.push({ code: BPF_JEQ_K, k: abi.arch, jf: next }, { code: BPF_LD_W_ABS, k: NR });
    if (abi.x32Bit !== undefined) program.push({ code: BPF_JGE_K, k: abi.x32Bit, jt: 'eperm' });
    const rules: Array<[readonly number[], Target]> = [
      [abi.keyring, 'eperm'],
      [abi.missing, 'enosys'],
      [abi.socket, '@family'],
    ];
    for (const [numbers, target] of rules)
      for (const nr of numbers) program.push({ code: BPF_JEQ_K, k: nr, jt: target });
    program.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW }, { label: next });
  });
  program.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW }, { label: '@family' });
  program.push({ code: BPF_LD_W_ABS, k: ARG0 });
  for (const family of ALLOWED_FAMILIES) program.push({ code: BPF_JEQ_K, k: family, jt: 'allow' });
  program.push({ code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EAFNOSUPPORT });
  return program;
}

const VERDICTS: ReadonlyArray<[Target, number]> = [
  ['allow', SECCOMP_RET_ALLOW],
  ['eperm', SECCOMP_RET_ERRNO | EPERM],
  ['enosys', SECCOMP_RET_ERRNO | ENOSYS],
  ['eafnosupport', SECCOMP_RET_ERRNO | EAFNOSUPPORT],
];

/** struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in host byte order, verdicts last. */
export function assemble(program: readonly Instruction[]): Buffer {
  const at = new Map<Target, number>();
  const code: Array<{ code: number; k: number; jt?: Target; jf?: Target }> = [];
  for (const instruction of program) {
    if ('label' in instruction) at.set(instruction.label, code.length);
    else code.push(instruction);
  }
  for (const [verdict, k] of VERDICTS) {
    at.set(verdict, code.length);
    code.push({ code: BPF_RET_K, k });
  }
  const offset = (from: number, target: Target | undefined): number => {
    if (target === undefined) return 0;
    const index = at.get(target);
    if (index === undefined) throw new Error(`seccomp: no label ${target}`);
    const jump = index - (from + 1);
    if (jump < 0 || jump > 255) throw new Error(`seccomp: jump from ${from} to ${index} out of range`);
    return jump;
  };
  const buffer = Buffer.alloc(code.length * 8);
  code.forEach((instruction, i) => {
    buffer.writeUInt16LE(instruction.code, i * 8);
    buffer.writeUInt8(offset(i, instruction.jt), i * 8 + 2);
    buffer.writeUInt8(offset(i, instruction.jf), i * 8 + 3);
    buffer.writeUInt32LE(instruction.k >>> 0, i * 8 + 4);
  });
  return buffer;
}

let written: string | undefined;

/** The compiled filter in a file of its own (read by bwrap through a fresh descriptor per command). */
export function seccompFilterFile(): string {
  if (written === undefined) {
    // In a directory of our own: a predictable name in /tmp could be another user's file or link.
    const dir = mkdtempSync(join(tmpdir(), 'issueloop-seccomp-'));
    const path = join(dir, 'filter.bpf');
    writeFileSync(path, assemble(sandboxFilter()), { mode: 0o600, flag: 'wx' });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    written = path;
  }
  return written;
}
