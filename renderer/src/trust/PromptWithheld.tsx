import { useWorkspaceTrust } from './use-workspace-trust';

interface PromptWithheldProps {
  /** The config key of the panel's prompt: `file_editing.system_prompt` or `agent.system_prompt`. */
  configKey: 'file_editing.system_prompt' | 'agent.system_prompt';
}

/**
 * A note in an assistant panel while the untrusted project's own system prompt is withheld: it is never sent to a
 * model, your own config's prompt applies instead. Nothing when the prompt is not withheld.
 */
export function PromptWithheld({ configKey }: PromptWithheldProps) {
  const trust = useWorkspaceTrust();
  if (!trust.state || trust.state.trusted || !trust.state.withheld.includes(configKey)) return null;
  return (
    <div className="chat-banner chat-banner-warn" role="note" aria-label="System prompt withheld">
      <div>
        <div className="chat-banner-title">This folder&apos;s system prompt is withheld</div>
        <code>{configKey}</code> in <code>.kiln/config.yaml</code> is not sent to any model until you trust the folder;
        the prompt of your own config applies, if it has one.
        <div>
          <button type="button" className="btn chat-banner-btn" onClick={() => void trust.askToTrust()}>
            Trust this folder…
          </button>
        </div>
      </div>
    </div>
  );
}
