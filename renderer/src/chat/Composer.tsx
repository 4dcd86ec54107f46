import { useEffect, useImperativeHandle, useRef, useState, type KeyboardEvent, type ReactNode, type Ref } from 'react';
import { insertSnippet, usePathDrop } from '../drag-out';
import { useCopyIn } from '../upload';
import { SendIcon, StopIcon } from '../ui';

/** Puts text into the message box from outside it (paths dropped on the transcript). */
export interface ComposerHandle {
  insert(text: string): void;
}

export interface ComposerProps {
  /** The textbox and Send are off (not configured, nothing to work on). */
  disabled: boolean;
  /** A run is going: Stop is on. */
  running: boolean;
  /** Send stays on during a run (the panel queues the message); otherwise it waits for the run to end. */
  sendWhileRunning?: boolean;
  placeholder: string;
  sendTitle: string;
  stopTitle: string;
  /** The textbox grows with the text up to this height (px). */
  maxHeight?: number;
  onSend: (text: string) => void;
  onStop: () => void;
  /** The bar's left side: a model picker, a status line. */
  children?: ReactNode;
  handle?: Ref<ComposerHandle>;
}

/** The message box under a chat transcript: Enter sends, Shift+Enter breaks the line. */
export function Composer({
  disabled,
  running,
  sendWhileRunning = false,
  placeholder,
  sendTitle,
  stopTitle,
  maxHeight = 160,
  onSend,
  onStop,
  children,
  handle,
}: ComposerProps) {
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const caret = useRef<number | null>(null);

  // Dropped tree rows (or workspace files from the OS) go in as their paths, at the caret.
  const insert = (snippet: string) => {
    const el = input.current;
    const next = insertSnippet(text, el?.selectionStart ?? text.length, el?.selectionEnd ?? text.length, snippet);
    caret.current = next.caret;
    setText(next.text);
    el?.focus();
  };
  useImperativeHandle(handle, () => ({ insert }));
  const drop = usePathDrop(insert, !disabled, useCopyIn());
  useEffect(() => {
    if (caret.current === null || !input.current) return;
    input.current.setSelectionRange(caret.current, caret.current);
    caret.current = null;
  }, [text]);
  const canSend = !disabled && (sendWhileRunning || !running) && text.trim().length > 0;

  const send = () => {
    if (!canSend) return;
    const message = text.trim();
    setText('');
    onSend(message);
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
    el.style.height = `${Math.min(el.scrollHeight, maxHeight)}px`;
  }, [text, maxHeight]);

  return (
    <div className={`chat-composer${disabled ? ' disabled' : ''}${drop.over ? ' drop-over' : ''}`} {...drop.handlers}>
      <textarea
        ref={input}
        aria-label="Message"
        rows={2}
        value={text}
        disabled={disabled}
        placeholder={placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="chat-composer-bar">
        {children}
        <span className="spacer" />
        <button type="button" className="chat-stop" disabled={!running} onClick={onStop} title={stopTitle}>
          <StopIcon /> Stop
        </button>
        <button type="button" className="chat-send" disabled={!canSend} onClick={send} title={sendTitle}>
          <SendIcon /> Send
        </button>
      </div>
    </div>
  );
}
