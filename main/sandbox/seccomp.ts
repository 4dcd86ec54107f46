/**
 * The seccomp filter of agent code, as the classic BPF program bubblewrap loads (`--seccomp FD`) right before it
 * starts the code: after its own setup and after Kiln's overlay mount, so only the agent's code is filtered.
 *
 * It refuses what a data-science run never needs and what would let code widen its own rights: tracing other
 * processes, the kernel keyring, eBPF, mounts, namespaces, perf, userfaultfd, kernel modules, kexec, swap, reboot,
 * file handles. Refused calls return EPERM (a clear error in the program, never a kill); clone3 returns ENOSYS, so
 * glibc falls back to clone, whose flags a classic filter can read (clone3's are behind a pointer), and clone with
 * any namespace flag is refused. A foreign architecture (i386 on x86_64, arm32 on aarch64) and x86_64's x32 calls
 * are refused whole: their numbers differ, so the list below would not hold for them.
 */

/** One `struct sock_filter`. */
export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

export type SeccompArch = 'x86_64' | 'aarch64';

/** `AUDIT_ARCH_*` as `seccomp_data.arch` holds it. */
export const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };

/** Calls refused with EPERM, by architecture (x86_64's unistd_64.h; aarch64 uses asm-generic's numbers). */
export const DENIED_SYSCALLS: Record<string, Record<SeccompArch, number>> = {
  ptrace: { x86_64: 101, aarch64: 117 },
  process_vm_readv: { x86_64: 310, aarch64: 270 },
  process_vm_writev: { x86_64: 311, aarch64: 271 },
  keyctl: { x86_64: 250, aarch64: 219 },
  add_key: { x86_64: 248, aarch64: 217 },
  request_key: { x86_64: 249, aarch64: 218 },
  bpf: { x86_64: 321, aarch64: 280 },
  mount: { x86_64: 165, aarch64: 40 },
  umount2: { x86_64: 166, aarch64: 39 },
  open_tree: { x86_64: 428, aarch64: 428 },
  move_mount: { x86_64: 429, aarch64: 429 },
  fsopen: { x86_64: 430, aarch64: 430 },
  fsconfig: { x86_64: 431, aarch64: 431 },
  fsmount: { x86_64: 432, aarch64: 432 },
  fspick: { x86_64: 433, aarch64: 433 },
  mount_setattr: { x86_64: 442, aarch64: 442 },
  unshare: { x86_64: 272, aarch64: 97 },
  setns: { x86_64: 308, aarch64: 268 },
  perf_event_open: { x86_64: 298, aarch64: 241 },
  userfaultfd: { x86_64: 323, aarch64: 282 },
  init_module: { x86_64: 175, aarch64: 105 },
  finit_module: { x86_64: 313, aarch64: 273 },
  delete_module: { x86_64: 176, aarch64: 106 },
  kexec_load: { x86_64: 246, aarch64: 104 },
  kexec_file_load: { x86_64: 320, aarch64: 294 },
  pivot_root: { x86_64: 155, aarch64: 41 },
  swapon: { x86_64: 167, aarch64: 224 },
  swapoff: { x86_64: 168, aarch64: 225 },
  reboot: { x86_64: 169, aarch64: 142 },
  open_by_handle_at: { x86_64: 304, aarch64: 265 },
};

export const CLONE_SYSCALL: Record<SeccompArch, number> = { x86_64: 56, aarch64: 220 };
export const CLONE3_SYSCALL: Record<SeccompArch, number> = { x86_64: 435, aarch64: 435 };

/**
 * CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. (CLONE_NEWTIME, 0x80, is only clone3's
 * and unshare's: in clone's flags that bit is the exit signal.) Flags are clone's first argument on both arches.
 */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000;

/** x86_64's x32 calls carry this bit in their number. */
export const X32_SYSCALL_BIT = 0x40000000;

export const EPERM = 1;
export const ENOSYS = 38;

export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;

// Classic BPF opcodes (linux/filter.h).
export const BPF_LD_W_ABS = 0x20;
export const BPF_JEQ_K = 0x15;
export const BPF_JGE_K = 0x35;
export const BPF_JSET_K = 0x45;
export const BPF_RET_K = 0x06;

/** Offsets in `struct seccomp_data` (nr, arch, instruction_pointer, args[6]); args' low halves (little-endian). */
export const SECCOMP_DATA = { nr: 0, arch: 4, argLow: (i: number) => 16 + 8 * i } as const;

const ARCHES: SeccompArch[] = ['x86_64', 'aarch64'];

type Label = 'allow' | 'eperm' | 'enosys' | `arch:${SeccompArch}` | `clone:${SeccompArch}`;
type Step =
  | { label: Label }
  | { load: number }
  | { ret: number }
  /** Jump to `then` when the test holds, else fall through to the next instruction (or to `otherwise`). */
  | { test: 'eq' | 'ge' | 'set'; k: number; then: Label; otherwise?: Label };

const TEST_CODE = { eq: BPF_JEQ_K, ge: BPF_JGE_K, set: BPF_JSET_K } as const;

/** The filter's program, the same on every machine (both arches' blocks are in it). */
export function buildSeccompProgram(): BpfInstruction[] {
  const steps: Step[] = [{ load: SECCOMP_DATA.arch }];
  for (const arch of ARCHES) steps.push({ test: 'eq', k: AUDIT_ARCH[arch], then: `arch:${arch}` });
  steps.push({ ret: SECCOMP_RET_ERRNO | EPERM });
  for (const arch of ARCHES) {
    steps.push({ label: `arch:${arch}` }, { load: SECCOMP_DATA.nr });
    if (arch === 'x86_64') steps.push({ test: 'ge', k: X32_SYSCALL_BIT, then: 'eperm' });
    for (const numbers of Object.values(DENIED_SYSCALLS)) steps.push({ test: 'eq', k: numbers[arch], then: 'eperm' });
    steps.push(
      { test: 'eq', k: CLONE3_SYSCALL[arch], then: 'enosys' },
      { test: 'eq', k: CLONE_SYSCALL[arch], then: `clone:${arch}`, otherwise: 'allow' },
      { label: `clone:${arch}` },
      { load: SECCOMP_DATA.argLow(0) },
      { test: 'set', k: CLONE_NAMESPACE_FLAGS, then: 'eperm', otherwise: 'allow' },
    );
  }
  steps.push(
    { label: 'allow' },
    { ret: SECCOMP_RET_ALLOW },
    { label: 'eperm' },
    { ret: SECCOMP_RET_ERRNO | EPERM },
    { label: 'enosys' },
    { ret: SECCOMP_RET_ERRNO | ENOSYS },
  );
  return assemble(steps);
}

/** Resolves labels to the relative forward jumps classic BPF takes (at most 255 instructions ahead). */
function assemble(steps: Step[]): BpfInstruction[] {
  const at = new Map<Label, number>();
  let index = 0;
  for (const step of steps) {
    if ('label' in step) at.set(step.label, index);
    else index++;
  }
  const program: BpfInstruction[] = [];
  const offset = (label: Label, from: number) => {
    const target = at.get(label);
    if (target === undefined || target <= from) throw new Error(`seccomp: no forward label ${label}`);
    const jump = target - from - 1;
    if (jump > 255) throw new Error(`seccomp: jump to ${label} too far (${jump})`);
    return jump;
  };
  for (const step of steps) {
    if ('label' in step) continue;
    const here = program.length;
    if ('load' in step) program.push({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: step.load });
    else if ('ret' in step) program.push({ code: BPF_RET_K, jt: 0, jf: 0, k: step.ret });
    else
      program.push({
        code: TEST_CODE[step.test],
        jt: offset(step.then, here),
        jf: step.otherwise ? offset(step.otherwise, here) : 0,
        k: step.k,
      });
  }
  return program;
}

/** The program as bubblewrap reads it from its fd: `struct sock_filter` records, 8 bytes each, little-endian. */
export function encodeSeccompProgram(program: readonly BpfInstruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    bytes.writeUInt16LE(ins.code, i * 8);
    bytes.writeUInt8(ins.jt, i * 8 + 2);
    bytes.writeUInt8(ins.jf, i * 8 + 3);
    bytes.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return bytes;
}

/** Where the program holds: the two arches it knows, both little-endian, as the encoding above assumes. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64' || arch === 'arm64';
}
