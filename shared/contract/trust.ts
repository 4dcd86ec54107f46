import { z } from 'zod';
import { request } from './define';

/** Something Kiln does not do in an untrusted folder, named for the operator with why. */
export const WithheldFeature = z.object({
  /** `git`, `agent code runs`. */
  name: z.string(),
  reason: z.string(),
});
export type WithheldFeature = z.infer<typeof WithheldFeature>;

/** Whether the workspace is trusted, and what is not used until it is. */
export const TrustState = z.object({
  trusted: z.boolean(),
  /**
   * Project config keys not used until trusted, as written in the file (`jupyter.command`, `models.<alias>`,
   * `agent.system_prompt`, `watch.exclude (for local history)`); main/config/key-trust.ts says which and why.
   */
  withheld: z.array(z.string()),
  /** What else restricted mode holds back here: git in a repository, agent code runs without a sandbox. */
  withheldFeatures: z.array(WithheldFeature),
});
export type TrustState = z.infer<typeof TrustState>;

export const trustRequests = {
  'trust.get': request(z.object({}), TrustState),
  /** Trusts this folder (remembered in the app's data) or revokes that trust. */
  'trust.set': request(z.object({ trusted: z.boolean() }), TrustState),
} as const;

export const trustEvents = {
  /** Trust was granted or revoked, or the project config changed what is withheld. */
  'trust.changed': TrustState,
} as const;
