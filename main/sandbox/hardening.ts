import { execFile } from 'node:child_process';

/**
 * What agent code may not do even inside its namespaces, as bubblewrap flags: no user namespace of its own (so no
 * mounts or namespaces of its making, `--disable-userns`) and the seccomp filter (seccomp.ts). Both take effect
 * in bubblewrap's last step before it starts the code, after its own setup and after Kiln's overlay mount, which
 * happen outside (the overlay in `unshare`'s namespace, around bwrap).
 */

/** The fd the shell that starts bwrap opens the seccomp program on (above stdio, below what bwrap opens itself). */
export const SECCOMP_FD = 9;

/**
 * bwrap's flags for the restrictions. `disableUserns`: this bwrap can (0.8+; where it cannot, the seccomp filter
 * still refuses a new user namespace); `seccomp`: the program is handed over on SECCOMP_FD.
 */
export function restrictionArgs(options: { disableUserns: boolean; seccomp: boolean }): string[] {
  return [
    ...(options.disableUserns ? ['--disable-userns'] : []),
    ...(options.seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
  ];
}

/** Whether this bwrap takes `--disable-userns` and it holds here (found once per Kiln: the machine does not change). */
export function probeDisableUserns(bwrap: string): Promise<boolean> {
  const args = ['--unshare-user', '--disable-userns', '--assert-userns-disabled', '--ro-bind', '/', '/', '--', 'true'];
  return new Promise((resolve) => execFile(bwrap, args, { timeout: 10_000 }, (err) => resolve(!err)));
}

/**
 * Wraps the bwrap command so it starts with the seccomp program open on SECCOMP_FD: the shell opens the file and
 * execs bwrap, which reads the fd whole and closes it, so the code never holds it. Innermost, right around bwrap:
 * what runs before it (pasta) may close inherited fds.
 */
export function withSeccompFd(programFile: string, bwrapCommand: readonly string[]): string[] {
  return ['/bin/sh', '-c', `exec ${SECCOMP_FD}<"$0" && exec "$@"`, programFile, ...bwrapCommand];
}
