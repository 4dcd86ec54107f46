import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, type SandboxPlan } from './bwrap-args';
import { outboundNetworkArgs, withOutboundNetwork } from './network';

describe('the outbound-only network (pasta)', () => {
  const plan: SandboxPlan = {
    workspaceRoot: '/w',
    readOnlyInWorkspace: [],
    placeholders: [],
    home: '/home/op',
    system: [],
    hiddenFiles: [],
    hiddenDirs: [],
    extraReadOnly: [],
    maskedFiles: [],
    maskedDirs: [],
    network: true,
    env: {},
    cwd: '/w',
  };

  it("gives the run a network namespace of its own, never the host's, and still binds the resolver's folder", () => {
    const args = buildBwrapArgs({ ...plan, outboundOnly: true });
    expect(args).toContain('--unshare-net');
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain('--ro-bind-try /run/systemd/resolve /run/systemd/resolve');
    expect(outboundNetworkArgs()).toEqual(['--info-fd', '5', '--block-fd', '6']);
  });

  it('forwards no host port unless named, and names them sorted once', () => {
    const command = ['/usr/bin/bwrap', '--', 'python3'];
    const none = withOutboundNetwork(
      { pasta: '/usr/bin/pasta', hostPorts: [], runAs: '0:0', seccompFile: null },
      command,
    );
    expect(none.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(none.slice(3)).toEqual(['kiln-net', '/usr/bin/pasta', 'none', '0:0', '-', ...command]);
    expect(none[2]).toContain('--no-map-gw -t none -u none -T "$tcp" -U none');
    const named = withOutboundNetwork(
      { pasta: '/usr/bin/pasta', hostPorts: [8000, 11434, 8000], runAs: '1000:1000', seccompFile: '/tmp/s/p.bpf' },
      command,
    );
    expect(named.slice(3, 8)).toEqual(['kiln-net', '/usr/bin/pasta', '8000,11434', '1000:1000', '/tmp/s/p.bpf']);
  });
});
