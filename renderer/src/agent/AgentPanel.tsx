import { useRef, useState } from 'react';
import { AGENT_SNIPPET, DIRECT_WRITES_NOTE, type AgentEntry, type RunState } from '../../../shared/contract';
import {
  AssistantMessage,
  ChatError,
  ChatHeader,
  ChatLog,
  ChatLogEmpty,
  ChatMarker,
  Composer,
  type ComposerHandle,
  ConfigErrorBanner,
  ModelsWithheld,
  SetupNeeded,
  ThinkingDots,
  UserMessage,
} from '../chat';
import { usePathDrop } from '../drag-out';
import { useOpenFilesStore } from '../editor';
import { TurnCheckpoint } from '../timeline';
import { useCopyIn } from '../upload';
import { PromptWithheld, useWorkspaceTrust } from '../trust';
import { AgentIcon, CheckIcon, ChevronIcon, ErrorIcon, SpinnerIcon } from '../ui';
import { useAgent, useAgentStore } from './agent-store';
import './agent.css';

type ToolEntry = Extract<AgentEntry, { type: 'tool' }>;

/**
 * The Agent panel: a chat agent over the whole workspace. It acts through the workspace verbs;
 * each call is a compact chip (verb, path, result) that expands to short previews, never file bodies.
 */
export function AgentPanel() {
  const store = useAgentStore();
  const { config, snapshot, transcript, runState, queued, sandbox } = useAgent();
  const enabled = config?.agent.enabled ?? snapshot?.enabled ?? false;
  const model = config?.agent.model ?? snapshot?.model ?? null;
  const tools = snapshot?.tools ?? [];
  const busy = runState === 'running' || queued > 0;
  const trust = useWorkspaceTrust();
  // Paths dropped on the transcript go into the message box, as if dropped there.
  const composer = useRef<ComposerHandle>(null);
  const transcriptDrop = usePathDrop((text) => composer.current?.insert(text), enabled, useCopyIn());

  return (
    <aside className="agent-panel" aria-label="Agent">
      <ChatHeader
        mark={<AgentIcon />}
        title="Agent"
        clearTitle="Clear: delete this workspace's agent session"
        clearDisabled={!enabled || (transcript.length === 0 && !busy)}
        onClear={() => void store.clear()}
      >
        {enabled && model && (
          <span
            className="as-model"
            title={`Model alias from .kiln/config.yaml; ${tools.length} verbs offered: ${tools.join(', ')}`}
          >
            {model}
            <span className="as-model-tools">· {tools.length} tools</span>
          </span>
        )}
      </ChatHeader>

      {config?.error && <ConfigErrorBanner issue={config.error} />}
      <PromptWithheld configKey="agent.system_prompt" />
      {sandbox && !sandbox.available && (
        // Persistent, never a toast: every run the agent makes here is unsandboxed (and refused until trusted).
        <div className="as-no-sandbox" role="note" title={sandbox.reason}>
          Agent code runs without a sandbox on this machine
        </div>
      )}

      {!config && !snapshot ? (
        <div className="chat-body as-centered chat-dim">Loading…</div>
      ) : !enabled && trust.modelsWithheld ? (
        <ModelsWithheld mark={<AgentIcon size={22} />} subject="The agent" onTrust={() => void trust.askToTrust()} />
      ) : !enabled ? (
        <SetupNeeded
          mark={<AgentIcon size={22} />}
          title="The workspace agent is off"
          intro={
            <>
              Add an <code>agent:</code> block naming a model to <code>.kiln/config.yaml</code>:
            </>
          }
          snippet={AGENT_SNIPPET}
          hint={
            <>
              The agent works across the whole workspace: it writes modules to <code>src/</code>, runs them, and works
              in notebooks. What it runs is logged in <code>scripts/</code>.
            </>
          }
        />
      ) : (
        <div
          className={`as-transcript-drop${transcriptDrop.over ? ' chat-drop-over' : ''}`}
          {...transcriptDrop.handlers}
        >
          <Transcript entries={transcript} runState={runState} />
        </div>
      )}

      {/* Sending while a run is going queues the message (main runs them one at a time). */}
      <Composer
        handle={composer}
        disabled={!enabled}
        running={busy}
        sendWhileRunning
        maxHeight={180}
        placeholder={
          enabled
            ? busy
              ? 'Queue a follow-up…'
              : 'Ask the agent to work in this workspace…'
            : trust.modelsWithheld
              ? 'Trust this folder to use its models'
              : 'Add an agent: block to .kiln/config.yaml to start'
        }
        sendTitle={busy ? 'Queue (Enter)' : 'Send (Enter)'}
        stopTitle="Stop the run and drop queued messages"
        onSend={(text) => void store.send(text)}
        onStop={() => void store.stop()}
      >
        <span className="as-status" aria-live="polite">
          {busy ? (queued > 0 ? `Working · ${queued} queued` : 'Working…') : ''}
        </span>
      </Composer>
    </aside>
  );
}

function Transcript({ entries, runState }: { entries: AgentEntry[]; runState: RunState }) {
  // Dots only while nothing else shows progress (no text streaming, no verb running).
  const visiblyBusy = entries.some(
    (e) => (e.type === 'assistant' && e.streaming) || (e.type === 'tool' && e.status === 'running'),
  );
  const thinking = runState === 'running' && !visiblyBusy;

  return (
    <ChatLog label="Agent transcript">
      {entries.length === 0 && runState !== 'running' && (
        <ChatLogEmpty>
          <AgentIcon size={22} />
          <p>Ask for work across the workspace: load the data, write a module, use it in a notebook.</p>
          <p className="chat-dim">
            Reusable code goes to <code>src/</code>; every run is logged in <code>scripts/</code>.
          </p>
        </ChatLogEmpty>
      )}
      {withCheckpoints(entries, runState)}
      {thinking && <ThinkingDots label="Working" />}
    </ChatLog>
  );
}

const RUN_VERBS: ReadonlySet<string> = new Set(['run-file', 'execute-code']);

/** The entries, each turn followed by its checkpoint (what it changed, and its undo) once it has run. */
function withCheckpoints(entries: AgentEntry[], runState: RunState) {
  const out = [];
  const lastTurn = entries.findLast((e) => e.type === 'user' && e.turn && !e.queued);
  let turn: string | undefined;
  // What the turn ran (run-file's file, execute-code's step): listed with its changes, never undone.
  let ran: { target: string; direct: boolean }[] = [];
  const close = (key: string) => {
    if (turn) {
      const running = runState === 'running' && lastTurn?.type === 'user' && lastTurn.turn === turn;
      out.push(<TurnCheckpoint key={`checkpoint-${key}`} turn={turn} running={running} ran={ran} />);
    }
  };
  for (const entry of entries) {
    if (entry.type === 'user') {
      close(entry.id);
      turn = entry.turn;
      ran = [];
    }
    if (entry.type === 'tool' && RUN_VERBS.has(entry.verb) && entry.target && entry.status !== 'running')
      ran.push({ target: entry.target, direct: entry.summary.endsWith(DIRECT_WRITES_NOTE) });
    out.push(<Entry key={entry.id} entry={entry} />);
  }
  close('end');
  return out;
}

function Entry({ entry }: { entry: AgentEntry }) {
  switch (entry.type) {
    case 'user':
      return <UserMessage text={entry.text} queued={entry.queued} />;
    case 'assistant':
      return <AssistantMessage text={entry.text} streaming={entry.streaming} />;
    case 'tool':
      return <ToolChip chip={entry} />;
    case 'marker':
      return <ChatMarker marker={entry.marker} text={entry.text} />;
    case 'error':
      return <ChatError code={entry.code} message={entry.message} icon={<ErrorIcon />} />;
  }
}

/** Summary parts the operator should notice on an ok chip: a cell or run outside the sandbox, writes refused. */
const NOTICE_PART = /^(unsandboxed|\d+ refused|writes not undoable)$/;

/** The summary after the chip's target, each part led by " · " so the chip's name reads as its label. */
function ChipSummary({ summary }: { summary: string }) {
  const parts = summary.split(' · ');
  return (
    <span className="as-chip-summary">
      {parts.map((part, i) => (
        <span key={i} className={NOTICE_PART.test(part) ? 'as-chip-notice' : undefined}>
          {` · ${part}`}
        </span>
      ))}
    </span>
  );
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
        aria-expanded={open}
        aria-controls={detailsId}
        title={open ? 'Hide details' : 'Show details'}
        onClick={() => setOpen(!open)}
      >
        <span className="as-chip-caret" aria-hidden>
          <ChevronIcon open={open} size={10} />
        </span>
        <span className="as-chip-status" aria-hidden>
          {chip.status === 'running' ? <SpinnerIcon /> : chip.status === 'ok' ? <CheckIcon size={12} /> : <ErrorIcon />}
        </span>
        {/* Named by its text, which reads as toolChipLabel (WCAG 2.5.3: the name is what is seen). */}
        <span className="as-chip-verb">{chip.verb}</span>
        {chip.target && (
          <span className="as-chip-target" title={chip.target}>
            {' '}
            {chip.target}
          </span>
        )}
        {chip.summary && <ChipSummary summary={chip.summary} />}
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
                      {arg.omitted > 0 && (
                        <span className="as-omitted">{`… ${arg.omitted.toLocaleString()} more characters`}</span>
                      )}
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
