import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { WithheldFeature } from '../../shared/contract/trust';

/** Whether `folder` is in a git repository: a `.git` (folder or file) in it or above it. Runs no git. */
export async function insideGitRepository(folder: string): Promise<boolean> {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    if (
      await fs.lstat(path.join(dir, '.git')).then(
        () => true,
        () => false,
      )
    )
      return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * What restricted mode holds back beyond the project config's keys: git in a repository (its config can name
 * programs git runs), and agent code runs where this machine has no sandbox for them. Nothing once trusted.
 */
export function withheldFeatures(facts: {
  trusted: boolean;
  inGitRepository: boolean;
  sandboxAvailable: boolean;
}): WithheldFeature[] {
  if (facts.trusted) return [];
  const features: WithheldFeature[] = [];
  if (facts.inGitRepository)
    features.push({
      name: 'git',
      reason: "change marks, the branch and the gutter: a repository's own config can name programs git runs",
    });
  if (!facts.sandboxAvailable)
    features.push({
      name: 'agent code runs',
      reason: 'run-file and execute-code: this machine has no sandbox for them (bubblewrap with user namespaces)',
    });
  return features;
}
