import { z } from 'zod';
import { request } from './define';

/** Whether the workspace is trusted, and what of its project config is not used until it is. */
export const TrustState = z.object({
  trusted: z.boolean(),
  /** Project settings that start programs or reach other servers, as written in the file (e.g. `jupyter.command`). */
  withheld: z.array(z.string()),
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
