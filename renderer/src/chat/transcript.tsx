import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A chat transcript's scroller: it follows the stream while the operator is at the bottom
 * and leaves them be when they scrolled up.
 */
export function ChatLog({ label, live = false, children }: { label: string; live?: boolean; children: ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  /** Where the last scroll event left the view: only a move up is the operator leaving the end. */
  const lastTop = useRef(0);

  // Follows from a ResizeObserver (after layout, before paint) rather than after every render: reading
  // scrollHeight there made each store update, each streamed token, lay out the whole window at once.
  useLayoutEffect(() => {
    const el = scroller.current!;
    const follow = new ResizeObserver(() => {
      if (!pinned.current) return;
      el.scrollTop = el.scrollHeight;
    });
    follow.observe(el);
    follow.observe(el.firstElementChild!);
    return () => follow.disconnect();
  }, []);

  return (
    <div
      ref={scroller}
      className="chat-log"
      role="log"
      aria-label={label}
      aria-live={live ? 'polite' : undefined}
      onScroll={(e) => {
        // Following's own scroll events move down, and may come a frame late, when more has arrived; so may the
        // browser's scroll anchoring when entries above change. Neither may unpin: only the view moving up does.
        const el = e.currentTarget;
        if (el.scrollHeight - el.scrollTop - el.clientHeight < 24) pinned.current = true;
        else if (el.scrollTop < lastTop.current - 1) pinned.current = false;
        lastTop.current = el.scrollTop;
      }}
    >
      <div className="chat-log-content">{children}</div>
    </div>
  );
}

/** What an empty transcript says: the panel's mark and a line or two on what to ask. */
export function ChatLogEmpty({ children }: { children: ReactNode }) {
  return <div className="chat-log-empty">{children}</div>;
}

/** Shown while the model works and nothing else shows progress. */
export function ThinkingDots({ label }: { label: string }) {
  return (
    <div className="chat-thinking" aria-label={label}>
      <span />
      <span />
      <span />
    </div>
  );
}

export function UserMessage({ text, queued = false }: { text: string; queued?: boolean }) {
  return (
    <div className={`chat-msg chat-user${queued ? ' queued' : ''}`}>
      {text}
      {queued && <span className="chat-queued-tag">queued</span>}
    </div>
  );
}

export function AssistantMessage({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <div
      className={`chat-msg chat-assistant${streaming ? ' streaming' : ''}`}
      data-streaming={streaming ? 'true' : undefined}
    >
      <ChatText text={text} />
    </div>
  );
}

/** A line across the transcript naming what happened (accepted, changed on disk, cleared...). */
export function ChatMarker({
  marker,
  text,
  icon,
  role,
}: {
  marker: string;
  text: string;
  icon?: ReactNode;
  role?: 'status';
}) {
  return (
    <div className={`chat-marker marker-${marker}`} role={role}>
      {icon}
      <span>{text}</span>
    </div>
  );
}

/** A failed run or refused request, as an alert in the transcript. */
export function ChatError({ code, message, icon }: { code: string; message: string; icon: ReactNode }) {
  return (
    <div className="chat-error" role="alert">
      {icon}
      <div>
        <div className="chat-error-title">{errorTitle(code)}</div>
        <div className="chat-error-message">{message}</div>
      </div>
    </div>
  );
}

function errorTitle(code: string): string {
  switch (code) {
    case 'E_MODEL':
      return 'The model run failed';
    case 'E_NO_MODEL':
      return 'No model';
    case 'E_BUSY':
      return 'Already running';
    case 'E_TOO_LARGE':
      return 'File too large';
    case 'E_CHANGED_ON_DISK':
      return 'Changed on disk';
    default:
      return 'Error';
  }
}

/** Just enough markdown for chat: ``` fences and `code` spans; everything else stays plain text. */
function ChatText({ text }: { text: string }) {
  const parts = text.split(/```[^\n]*\n?/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <pre key={i}>{part.replace(/\n$/, '')}</pre>
        ) : (
          part
            .split(/(`[^`\n]+`)/)
            .map((piece, j) =>
              piece.length > 2 && piece.startsWith('`') && piece.endsWith('`') ? (
                <code key={`${i}-${j}`}>{piece.slice(1, -1)}</code>
              ) : (
                piece
              ),
            )
        ),
      )}
    </>
  );
}
