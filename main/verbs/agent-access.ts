import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import { createLogger } from '../log';
import { defaultHomes, ProtectedPaths } from '../protected-paths';
import type { Workspace } from '../workspace';

const log = createLogger('verbs');
const noRealpath = log.caught(
  'a path being created does not exist yet; its deepest existing folder is resolved instead',
  null,
);

/**
 * What agents may read and change in one workspace: every verb asks here first, and the sandbox's mounts and the
 * apply of a run's writes use the same list (`protectedPaths`), so the three cannot disagree.
 */
export class AgentAccess {
  private protectedPathsPromise: Promise<ProtectedPaths> | null = null;

  constructor(
    private readonly workspace: Workspace,
    private readonly options: { scriptsDir: string; privateDirs?: string[]; env?: NodeJS.ProcessEnv },
  ) {}

  protectedPaths(): Promise<ProtectedPaths> {
    this.protectedPathsPromise ??= defaultHomes(this.options.env ?? process.env).then((homes) =>
      ProtectedPaths.create({
        root: this.workspace.root,
        scriptsDir: this.options.scriptsDir,
        privatePaths: this.options.privateDirs ?? [],
        homes,
      }),
    );
    return this.protectedPathsPromise;
  }

  /**
   * E_PROTECTED when agents may not write (or read) `rel`: judged on the path as given and on where it leads (a
   * link inside the workspace to `.kiln/` is `.kiln/`).
   */
  async refuseIf(rel: string, access: 'read' | 'write'): Promise<void> {
    const protectedPaths = await this.protectedPaths();
    const real = this.workspace.relative(await realpathOfDeepest(await this.workspace.resolve(rel)));
    for (const candidate of new Set([rel, real])) {
      const why = access === 'write' ? protectedPaths.writeRefusal(candidate) : protectedPaths.readRefusal(candidate);
      if (!why) continue;
      const advice =
        access === 'write'
          ? 'Agents cannot change it; the operator can make that change in the editor.'
          : 'Agents cannot read it; the operator can open it in the editor.';
      throw new KilnError('E_PROTECTED', `"${rel}" is protected: ${why}. ${advice}`, { path: rel, why });
    }
  }
}

/** The realpath of `abs`, or of its deepest existing ancestor with the rest appended (the guard refused links out). */
async function realpathOfDeepest(abs: string): Promise<string> {
  const rest: string[] = [];
  for (let probe = abs; ; probe = path.dirname(probe)) {
    const real = await realpath(probe).catch(noRealpath);
    if (real) return path.join(real, ...rest);
    if (path.dirname(probe) === probe) return abs;
    rest.unshift(path.basename(probe));
  }
}
