import { describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH,
  BPF_JEQ_K,
  BPF_JGE_K,
  BPF_JSET_K,
  BPF_LD_W_ABS,
  BPF_RET_K,
  buildSeccompProgram,
  CLONE3_SYSCALL,
  CLONE_SYSCALL,
  DENIED_SYSCALLS,
  encodeSeccompProgram,
  ENOSYS,
  EPERM,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  type BpfInstruction,
  type SeccompArch,
} from './seccomp';
import { restrictionArgs, withSeccompFd } from './hardening';

/** One syscall as the kernel hands it to the filter (`struct seccomp_data`, little-endian). */
function seccompData(arch: number, nr: number, args: number[] = []): Buffer {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((arg, i) => data.writeBigUInt64LE(BigInt(arg), 16 + 8 * i));
  return data;
}

/** A classic BPF interpreter for the instructions the filter may use: anything else fails the test. */
function runFilter(program: readonly BpfInstruction[], data: Buffer): number {
  let acc = 0;
  for (let pc = 0, steps = 0; pc < program.length; pc++, steps++) {
    if (steps > program.length) throw new Error('loop');
    const ins = program[pc];
    switch (ins.code) {
      case BPF_LD_W_ABS:
        if (ins.k % 4 !== 0 || ins.k + 4 > data.length) throw new Error(`load at ${ins.k}`);
        acc = data.readUInt32LE(ins.k);
        break;
      case BPF_JEQ_K:
        pc += acc === ins.k ? ins.jt : ins.jf;
        break;
      case BPF_JGE_K:
        pc += acc >= ins.k ? ins.jt : ins.jf;
        break;
      case BPF_JSET_K:
        pc += (acc & ins.k) !== 0 ? ins.jt : ins.jf;
        break;
      case BPF_RET_K:
        return ins.k;
      default:
        throw new Error(`opcode ${ins.code}`);
    }
  }
  throw new Error('fell off the end of the program');
}

const ALLOW = SECCOMP_RET_ALLOW;
const DENY = SECCOMP_RET_ERRNO | EPERM;
const NO_CLONE3 = SECCOMP_RET_ERRNO | ENOSYS;
// What a data-science run does all day: read, write, openat, mmap, execve, exit_group, futex, socket, connect.
const ORDINARY: Record<SeccompArch, number[]> = {
  x86_64: [0, 1, 257, 9, 59, 231, 202, 41, 42, 57, 58, 61, 39],
  aarch64: [63, 64, 56, 222, 221, 94, 98, 198, 203, 260, 172],
};
const FORK_FLAGS = 0x01200011; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, as glibc's fork()
const THREAD_FLAGS = 0x003d0f00; // pthread_create's
const NAMESPACE_FLAGS = {
  CLONE_NEWNS: 0x00020000,
  CLONE_NEWCGROUP: 0x02000000,
  CLONE_NEWUTS: 0x04000000,
  CLONE_NEWIPC: 0x08000000,
  CLONE_NEWUSER: 0x10000000,
  CLONE_NEWPID: 0x20000000,
  CLONE_NEWNET: 0x40000000,
};

describe('the seccomp filter', () => {
  const program = buildSeccompProgram();

  for (const arch of ['x86_64', 'aarch64'] as const) {
    describe(arch, () => {
      const verdict = (nr: number, args: number[] = []) => runFilter(program, seccompData(AUDIT_ARCH[arch], nr, args));

      it('refuses each listed call with EPERM', () => {
        for (const [name, numbers] of Object.entries(DENIED_SYSCALLS))
          expect({ name, verdict: verdict(numbers[arch]) }).toEqual({ name, verdict: DENY });
      });

      it('allows ordinary calls', () => {
        for (const nr of ORDINARY[arch]) expect({ nr, verdict: verdict(nr) }).toEqual({ nr, verdict: ALLOW });
      });

      it('answers clone3 with ENOSYS, so glibc falls back to clone', () => {
        expect(verdict(CLONE3_SYSCALL[arch])).toBe(NO_CLONE3);
      });

      it('allows clone for fork and threads, refuses it with any namespace flag', () => {
        expect(verdict(CLONE_SYSCALL[arch], [FORK_FLAGS])).toBe(ALLOW);
        expect(verdict(CLONE_SYSCALL[arch], [THREAD_FLAGS])).toBe(ALLOW);
        for (const [name, flag] of Object.entries(NAMESPACE_FLAGS))
          expect({ name, verdict: verdict(CLONE_SYSCALL[arch], [FORK_FLAGS | flag]) }).toEqual({ name, verdict: DENY });
      });
    });
  }

  it('refuses x32 calls on x86_64 and every call of a foreign architecture', () => {
    const x32Read = 0x40000000;
    expect(runFilter(program, seccompData(AUDIT_ARCH.x86_64, x32Read))).toBe(DENY);
    expect(runFilter(program, seccompData(AUDIT_ARCH.x86_64, x32Read + 101))).toBe(DENY);
    const I386 = 0x40000003;
    const ARM = 0x40000028;
    for (const arch of [I386, ARM])
      for (const nr of [0, 3, 4, 120]) expect(runFilter(program, seccompData(arch, nr))).toBe(DENY);
  });

  it('holds the same call numbers on both arches only where the kernel made them generic', () => {
    // A transposed pair would refuse an ordinary call on one arch: every number appears once per arch.
    for (const arch of ['x86_64', 'aarch64'] as const) {
      const numbers = Object.values(DENIED_SYSCALLS).map((n) => n[arch]);
      expect(new Set(numbers).size).toBe(numbers.length);
      expect(numbers).not.toContain(CLONE_SYSCALL[arch]);
    }
  });

  it('is encoded as 8-byte sock_filter records, never kills, and is built the same each time', () => {
    const bytes = encodeSeccompProgram(program);
    expect(bytes.length).toBe(program.length * 8);
    expect(bytes.readUInt16LE(0)).toBe(BPF_LD_W_ABS);
    expect(bytes.readUInt32LE(4)).toBe(4); // seccomp_data.arch
    const returns = program.filter((ins) => ins.code === BPF_RET_K).map((ins) => ins.k);
    expect(new Set(returns)).toEqual(new Set([ALLOW, DENY, NO_CLONE3]));
    expect(encodeSeccompProgram(buildSeccompProgram()).equals(bytes)).toBe(true);
    expect(program.length).toBeLessThan(256);
  });
});

describe('the restriction flags', () => {
  it('disable user namespaces and hand bwrap the program on fd 9, opened by a shell right around bwrap', () => {
    expect(restrictionArgs({ disableUserns: true, seccomp: true })).toEqual(['--disable-userns', '--seccomp', '9']);
    expect(restrictionArgs({ disableUserns: false, seccomp: true })).toEqual(['--seccomp', '9']);
    expect(withSeccompFd('/tmp/x/p.bpf', ['/usr/bin/bwrap', '--seccomp', '9', '--', 'true'])).toEqual([
      '/bin/sh',
      '-c',
      'exec 9<"$0" && exec "$@"',
      '/tmp/x/p.bpf',
      '/usr/bin/bwrap',
      '--seccomp',
      '9',
      '--',
      'true',
    ]);
  });
});
