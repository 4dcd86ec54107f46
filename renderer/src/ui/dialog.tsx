import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

export interface DialogButton<V extends string> {
  label: string;
  value: V;
  /** The default action: styled as primary and triggered by Enter. */
  primary?: boolean;
  danger?: boolean;
}

export interface DialogRequest<V extends string> {
  title: string;
  message: ReactNode;
  buttons: DialogButton<V>[];
  /** What Escape or closing the dialog answers. */
  cancelValue: V;
}

type Ask = <V extends string>(request: DialogRequest<V>) => Promise<V>;

const DialogContext = createContext<Ask | null>(null);

interface Open {
  request: DialogRequest<string>;
  resolve: (value: string) => void;
}

/** Hosts one modal question at a time; `useAsk()` returns a promise of the button pressed. */
export function DialogProvider({ children }: { children: ReactNode }) {
  const [queue, setQueue] = useState<Open[]>([]);
  const ask = useCallback<Ask>(
    <V extends string>(request: DialogRequest<V>) =>
      new Promise<V>((resolve) => {
        setQueue((q) => [
          ...q,
          { request: request as DialogRequest<string>, resolve: resolve as (value: string) => void },
        ]);
      }),
    [],
  );
  const current = queue[0];
  const answer = (value: string) => {
    current?.resolve(value);
    setQueue((q) => q.slice(1));
  };
  return (
    <DialogContext.Provider value={ask}>
      {children}
      {current && <Dialog request={current.request} onAnswer={answer} />}
    </DialogContext.Provider>
  );
}

export function useAsk(): Ask {
  const ask = useContext(DialogContext);
  if (!ask) throw new Error('useAsk outside DialogProvider');
  return ask;
}

function Dialog({ request, onAnswer }: { request: DialogRequest<string>; onAnswer: (value: string) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const previousFocus = useRef<Element | null>(null);
  useEffect(() => {
    previousFocus.current = document.activeElement;
    const primary =
      ref.current?.querySelector<HTMLButtonElement>('button[data-primary="true"]') ??
      ref.current?.querySelector('button');
    primary?.focus();
    return () => (previousFocus.current as HTMLElement | null)?.focus?.();
  }, [request]);
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onAnswer(request.cancelValue);
    } else if (event.key === 'Tab') {
      // Keep focus inside the dialog.
      const buttons = Array.from(ref.current?.querySelectorAll('button') ?? []);
      const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const next = event.shiftKey ? (index - 1 + buttons.length) % buttons.length : (index + 1) % buttons.length;
      buttons[next]?.focus();
      event.preventDefault();
    }
  };
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onAnswer(request.cancelValue)}>
      <div
        ref={ref}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="kiln-dialog-title"
        aria-describedby="kiln-dialog-message"
        onKeyDown={onKeyDown}
      >
        <h2 id="kiln-dialog-title" className="dialog-title">
          {request.title}
        </h2>
        <div id="kiln-dialog-message" className="dialog-message">
          {request.message}
        </div>
        <div className="dialog-buttons">
          {request.buttons.map((button) => (
            <button
              key={button.value}
              type="button"
              data-primary={button.primary ? 'true' : undefined}
              className={`btn${button.primary ? ' btn-primary' : ''}${button.danger ? ' btn-danger' : ''}`}
              onClick={() => onAnswer(button.value)}
            >
              {button.label}
            </button>
          ))}
        </div>
      </div>
    </div>
  );
}
