import { useEffect, useRef } from 'react';
import { useCommands } from '../commands';
import { useWorkspaceTrust } from './use-workspace-trust';

/**
 * Restricted mode, as VS Code's Workspace Trust: while the folder is untrusted and its config asks for
 * something that needs trust, a bar says what is not used and offers "Trust this folder". The question is
 * asked once when the window opens; the decision can be changed from the command palette.
 */
export function TrustBanner() {
  const { state, restricted, setTrusted, askToTrust } = useWorkspaceTrust();
  const asked = useRef(false);

  useEffect(() => {
    if (!restricted || asked.current) return;
    asked.current = true;
    void askToTrust();
  }, [restricted, askToTrust]);

  useCommands(
    state === null
      ? []
      : state.trusted
        ? [
            {
              id: 'workspace.revokeTrust',
              title: 'Revoke Trust in This Folder',
              category: 'Workspace',
              run: () => setTrusted(false),
            },
          ]
        : [
            {
              id: 'workspace.trust',
              title: 'Trust This Folder…',
              category: 'Workspace',
              run: async () => void (await askToTrust()),
            },
          ],
  );

  if (!restricted || !state) return null;
  return (
    <div className="trust-banner" role="status" aria-label="Restricted mode">
      <span className="trust-banner-text">
        <strong>Restricted mode.</strong> Not used until you trust this folder:{' '}
        {[...state.withheld, ...state.withheldFeatures.map((feature) => feature.name)].join(', ')}.
      </span>
      <button type="button" className="btn btn-primary" onClick={() => void askToTrust()}>
        Trust this folder…
      </button>
    </div>
  );
}
