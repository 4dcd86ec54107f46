import { expect, it } from 'vitest';
import type { TrustState } from '../../shared/contract';
import { Emitter } from '../../shared/base/event';
import { makeTempDir } from '../../test-support/temp-workspace';
import { TrustStateService } from './trust-state';
import { WorkspaceTrust } from './workspace-trust';

it('tells the trust state when the decision or the withheld config changes; followers of the decision are told once per change', async () => {
  const data = await makeTempDir();
  const folder = await makeTempDir();
  try {
    const trust = await WorkspaceTrust.open({ dataDir: data.dir, folder: folder.dir });
    const config = new Emitter<void>();
    let withheld = ['jupyter.command'];
    const state = new TrustStateService({
      trust,
      withheld: () => withheld,
      onDidChangeConfig: config.event,
      facts: Promise.resolve({ inGitRepository: true, sandboxAvailable: true }),
    });
    const told: TrustState[] = [];
    const decisions: boolean[] = [];
    state.onDidChange((s) => told.push(s));
    trust.onDidChange((trusted) => decisions.push(trusted));

    expect(await state.get()).toMatchObject({ trusted: false, withheld: ['jupyter.command'] });
    expect((await state.get()).withheldFeatures.length).toBeGreaterThan(0);
    const granted = await state.set(true);
    expect(granted).toMatchObject({ trusted: true, withheldFeatures: [] });
    expect(told.at(-1)).toEqual(granted);
    await state.set(true); // no change: its followers are not told again; the state is
    expect(decisions).toEqual([true]);
    expect(told).toHaveLength(2);
    withheld = [];
    config.fire();
    await new Promise<void>((resolve) => state.onDidChange(() => resolve()));
    expect(told.at(-1)).toMatchObject({ trusted: true, withheld: [] });
    await state.dispose();
    trust.dispose();
  } finally {
    await data.cleanup();
    await folder.cleanup();
  }
});
