import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { WORKSPACE_AGENT_SNIPPET, toolChipLabel, type AgentSessionEntry, type ConfigIssue, type RunState } from '../../../shared/contract';
import { useOpenFilesStore } from '../editor';
import { useAgentSession, useAgentSessionStore } from './agent-session-store';
import { AgentIcon, CheckGlyph, ChevronGlyph, ErrorGlyph, SendGlyph, SpinnerGlyph, StopGlyph, TrashGlyph, WarnGlyph } from './glyphs';
import './agent-session.css';

type ToolEntry = Extract<AgentSessionEntry, { type: 'tool' }>;

/**
 * The Agent panel: a chat agent over the whole workspace. It acts through the workspace verbs;
 * each call is a compact chip (verb, path, result) that expands to short previews, never file bodies.
 */
export function AgentPanel() {
  const store = useAgentSessionStore();
  const { config, snapshot, transcript, runState, queued } = useAgentSession();
  const enabled = config?.agent.enabled ?? snapshot?.enabled ?? false;
  const model = config?.agent.model ?? snapshot?.model ?? null;
  const tools = snapshot?.tools ?? [];
  const busy = runState === 'running' || queued > 0;

  return (
    <aside className="agent-session" aria-label="Agent">
      <header className="as-header">
        <AgentIcon />
        <span className="as-title">Agent</span>
        {enabled && model && (
          <span className="as-model" title={`Model alias from .kiln/config.yaml; ${tools.length} verbs offered: ${tools.join(', ')}`}>
            {model}
            <span className="as-model-tools">· {tools.length} tools</span>
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="as-icon-btn"
          title="Clear: delete this workspace's agent session"
          disabled={!enabled || (transcript.length === 0 && !busy)}
          onClick={() => void store.clear()}
        >
          <TrashGlyph />
          <span>Clear</span>
        </button>
      </header>

      {config?.error && <ConfigErrorBanner issue={config.error} />}

      {!config && !snapshot ? (
        <div className="as-body as-centered as-dim">Loading…</div>
      ) : !enabled ? (
        <EmptyState />
      ) : (
        <Transcript entries={transcript} runState={runState} />
      )}

      <Composer
        enabled={enabled}
        running={busy}
        queued={queued}
        onSend={(text) => void store.send(text)}
        onStop={() => void store.stop()}
      />
    </aside>
  );
}

function ConfigErrorBanner({ issue }: { issue: ConfigIssue }) {
  const where = `${issue.file}${issue.line ? `:${issue.line}` : ''}`;
  return (
    <div className="as-banner" role="alert" aria-label="Config error">
      <WarnGlyph />
      <div>
        <div className="as-banner-title">
          Config error in <code>{where}</code>
        </div>
        <div>
          {issue.key && <code>{issue.key}</code>}
          {issue.key && ': '}
          {issue.message}
        </div>
        <div className="as-dim">The last valid config keeps running.</div>
      </div>
    </div>
  );
}

function EmptyState() {
  return (
    <div className="as-body as-empty">
      <div className="as-empty-mark">
        <AgentIcon size={22} />
      </div>
      <h3>The workspace agent is off</h3>
      <p>
        Add an <code>agent:</code> block naming a model to <code>.kiln/config.yaml</code>:
      </p>
      <pre className="as-snippet" aria-label="Config snippet">{WORKSPACE_AGENT_SNIPPET}</pre>
      <p className="as-hint">
        The agent works across the whole workspace: it writes modules to <code>src/</code>, runs them, and works in notebooks.
        What it runs is logged in <code>scripts/</code>.
      </p>
    </div>
  );
}

function Transcript({ entries, runState }: { entries: AgentSessionEntry[]; runState: RunState }) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  // Follow the stream while the operator is at the bottom; leave them be when they scrolled up.
  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

  // Dots only while nothing else shows progress (no text streaming, no verb running).
  const visiblyBusy = entries.some((e) => (e.type === 'assistant' && e.streaming) || (e.type === 'tool' && e.status === 'running'));
  const thinking = runState === 'running' && !visiblyBusy;

  return (
    <div
      ref={scroller}
      className="as-transcript"
      role="log"
      aria-label="Agent transcript"
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {entries.length === 0 && runState !== 'running' && (
        <div className="as-transcript-empty">
          <AgentIcon size={22} />
          <p>Ask for work across the workspace: load the data, write a module, use it in a notebook.</p>
          <p className="as-dim">Reusable code goes to <code>src/</code>; every run is logged in <code>scripts/</code>.</p>
        </div>
      )}
      {entries.map((entry) => (
        <Entry key={entry.id} entry={entry} />
      ))}
      {thinking && (
        <div className="as-thinking" aria-label="Working">
          <span />
          <span />
          <span />
        </div>
      )}
    </div>
  );
}

function Entry({ entry }: { entry: AgentSessionEntry }) {
  switch (entry.type) {
    case 'user':
      return (
        <div className={`as-msg as-user${entry.queued ? ' queued' : ''}`}>
          {entry.text}
          {entry.queued && <span className="as-queued-tag">queued</span>}
        </div>
      );
    case 'assistant':
      return (
        <div className={`as-msg as-assistant${entry.streaming ? ' streaming' : ''}`} data-streaming={entry.streaming ? 'true' : undefined}>
          <ChatText text={entry.text} />
        </div>
      );
    case 'tool':
      return <ToolChip chip={entry} />;
    case 'marker':
      return (
        <div className={`as-marker marker-${entry.marker}`}>
          <span>{entry.text}</span>
        </div>
      );
    case 'error':
      return (
        <div className="as-error" role="alert">
          <ErrorGlyph />
          <div>
            <div className="as-error-title">{entry.code === 'E_NO_MODEL' ? 'No model' : entry.code === 'E_MODEL' ? 'The model run failed' : 'Error'}</div>
            <div className="as-error-message">{entry.message}</div>
          </div>
        </div>
      );
  }
}

/** A verb call: verb, target and a one-line result; expands to short previews of its arguments and result. */
function ToolChip({ chip }: { chip: ToolEntry }) {
  const [open, setOpen] = useState(false);
  const openFiles = useOpenFilesStore();
  const detailsId = `as-chip-${chip.id}`;
  const openable = chip.status !== 'running' && chip.target !== null && /\.[A-Za-z0-9]+$/.test(chip.target);
  return (
    <div className={`as-chip-wrap status-${chip.status}${open ? ' open' : ''}`}>
      <button
        type="button"
        className="as-chip"
        aria-label={toolChipLabel(chip)}
        aria-expanded={open}
        aria-controls={detailsId}
        title={open ? 'Hide details' : 'Show details'}
        onClick={() => setOpen(!open)}
      >
        <span className="as-chip-caret" aria-hidden>
          <ChevronGlyph open={open} />
        </span>
        <span className="as-chip-status" aria-hidden>
          {chip.status === 'running' ? <SpinnerGlyph /> : chip.status === 'ok' ? <CheckGlyph /> : <ErrorGlyph />}
        </span>
        <span className="as-chip-verb">{chip.verb}</span>
        {chip.target && (
          <span className="as-chip-target" title={chip.target}>
            {chip.target}
          </span>
        )}
        {chip.summary && <span className="as-chip-summary">{chip.summary}</span>}
      </button>
      {open && (
        <div className="as-chip-details" id={detailsId} role="group" aria-label={`Details of ${chip.verb}`}>
          {chip.args.length > 0 && (
            <dl className="as-args">
              {chip.args.map((arg) => (
                <div key={arg.name} className="as-arg">
                  <dt>{arg.name}</dt>
                  <dd>
                    <pre>
                      {arg.value}
                      {arg.omitted > 0 && <span className="as-omitted">{`… ${arg.omitted.toLocaleString()} more characters`}</span>}
                    </pre>
                  </dd>
                </div>
              ))}
            </dl>
          )}
          {chip.resultPreview && (
            <div className="as-result">
              <div className="as-result-label">{chip.status === 'error' ? 'Error' : 'Result'}</div>
              <pre>{chip.resultPreview}</pre>
            </div>
          )}
          {openable && (
            <button type="button" className="as-link" onClick={() => void openFiles.open(chip.target!)}>
              Open {chip.target}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Just enough markdown for chat: ``` fences and `code` spans. */
function ChatText({ text }: { text: string }) {
  const parts = text.split(/```[^\n]*\n?/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <pre key={i}>{part.replace(/\n$/, '')}</pre>
        ) : (
          part.split(/(`[^`\n]+`)/).map((piece, j) =>
            piece.length > 2 && piece.startsWith('`') && piece.endsWith('`') ? <code key={`${i}-${j}`}>{piece.slice(1, -1)}</code> : piece,
          )
        ),
      )}
    </>
  );
}

interface ComposerProps {
  enabled: boolean;
  running: boolean;
  queued: number;
  onSend: (text: string) => void;
  onStop: () => void;
}

/** Sending while a run is going queues the message (main runs them one at a time). */
function Composer({ enabled, running, queued, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const canSend = enabled && text.trim().length > 0;

  const send = () => {
    if (!canSend) return;
    onSend(text.trim());
    setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 180)}px`;
  }, [text]);

  return (
    <div className={`as-composer${enabled ? '' : ' disabled'}`}>
      <textarea
        ref={input}
        aria-label="Message"
        rows={2}
        value={text}
        disabled={!enabled}
        placeholder={enabled ? (running ? 'Queue a follow-up…' : 'Ask the agent to work in this workspace…') : 'Add an agent: block to .kiln/config.yaml to start'}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="as-composer-bar">
        <span className="as-status" aria-live="polite">
          {running ? (queued > 0 ? `Working · ${queued} queued` : 'Working…') : ''}
        </span>
        <span className="spacer" />
        <button type="button" className="as-stop" disabled={!running} onClick={onStop} title="Stop the run and drop queued messages">
          <StopGlyph /> Stop
        </button>
        <button type="button" className="as-send" disabled={!canSend} onClick={send} title={running ? 'Queue (Enter)' : 'Send (Enter)'}>
          <SendGlyph /> Send
        </button>
      </div>
    </div>
  );
}
