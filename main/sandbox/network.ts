/**
 * `sandbox.network: true` without the host: the run gets a network namespace of its own (bwrap --unshare-net) that
 * pasta (Debian's `passt` package) connects to the outside through the host's sockets. Outbound connections work;
 * the host's own loopback services do not (no port forwarded from the run's loopback to the host's, `-T none`; the
 * gateway address not mapped to the host, `--no-map-gw`), except the ports the config names (`sandbox.host_ports`);
 * nothing on the host reaches into the run (`-t none -u none`).
 *
 * pasta attaches to the sandbox's namespace by its pid (bwrap's --info-fd) while bwrap holds the code back
 * (--block-fd) until pasta has set up the interface, so the code never runs without its network, and pasta runs in
 * the foreground in the run's process group, so a stopped run takes it along.
 */

/** The fds of bwrap's --info-fd (it writes the sandbox's pid) and --block-fd (it waits for a byte to start the code). */
export const INFO_FD = 5;
export const BLOCK_FD = 6;

/** The exit status of a run whose network could not be set up (the code never ran). */
export const NETWORK_SETUP_FAILED = 125;

/** The bwrap flags that hand the sandbox's pid out and hold the code until the network is up. */
export function outboundNetworkArgs(): string[] {
  return ['--info-fd', String(INFO_FD), '--block-fd', String(BLOCK_FD)];
}

/**
 * The shell that starts bwrap, attaches pasta, then lets the code go. Arguments: pasta, the TCP ports to forward
 * to the host's loopback ("none" or "11434,8000"), the ids pasta runs as, the seccomp program's file ("-": none),
 * then bwrap's command line. Should pasta fail, the sandbox is killed while it still waits (its code never starts)
 * and the run ends with NETWORK_SETUP_FAILED and pasta's reason on stderr.
 */
const NETWORK_SCRIPT = [
  'pasta=$1 tcp=$2 ids=$3 bpf=$4; shift 4',
  'd=$(mktemp -d) && mkfifo "$d/info" "$d/go" || exit 125',
  // A background job's stdin is /dev/null unless given: the run keeps Kiln's.
  'exec 3<&0',
  'if [ "$bpf" != - ]; then exec 9<"$bpf" || exit 125; fi',
  `"$@" ${INFO_FD}>"$d/info" ${BLOCK_FD}<"$d/go" <&3 3<&- &`,
  'run=$!',
  'exec 9<&- 3<&- 7<"$d/info" 8>"$d/go"',
  'pid=',
  'while read -r line <&7; do case $line in *child-pid*) pid=${line#*: }; pid=${pid%%[!0-9]*}; break;; esac; done',
  // The sandbox's first process (pid 1 of its namespace: all of it goes) first, while the go fifo is still open.
  'fail() { kill -9 $pid $run 2>/dev/null; wait $run 2>/dev/null; rm -rf "$d"; echo "kiln: $1" >&2; exit 125; }',
  '[ -n "$pid" ] || fail "the sandbox did not start"',
  '"$pasta" --config-net -q -f --runas "$ids" --no-map-gw -t none -u none -T "$tcp" -U none -l /dev/null -P "$d/pasta" "$pid" &',
  'net=$!',
  // pasta writes its pid file once the run's interface is up.
  'while [ ! -s "$d/pasta" ]; do kill -0 $net 2>/dev/null || fail "the run\'s network (pasta) did not start"; sleep 0.01; done',
  'rm -rf "$d"',
  'echo go >&8',
  'exec 7<&- 8>&-',
  'wait $run; rc=$?',
  'kill $net 2>/dev/null',
  'exit $rc',
].join('\n');

/** Wraps bwrap's command line (which holds outboundNetworkArgs) so it runs with pasta's outbound-only network. */
export function withOutboundNetwork(
  options: { pasta: string; hostPorts: readonly number[]; runAs: string; seccompFile: string | null },
  bwrapCommand: readonly string[],
): string[] {
  const tcp = options.hostPorts.length ? [...new Set(options.hostPorts)].sort((a, b) => a - b).join(',') : 'none';
  return [
    '/bin/sh',
    '-c',
    NETWORK_SCRIPT,
    'kiln-net',
    options.pasta,
    tcp,
    options.runAs,
    options.seccompFile ?? '-',
    ...bwrapCommand,
  ];
}

export const NO_PASTA_MESSAGE =
  'sandbox.network: true needs pasta (apt-get install passt) so the run can reach out without reaching this ' +
  "machine's own services (localhost): it is not installed here. Install it, or set sandbox.network: false.";
