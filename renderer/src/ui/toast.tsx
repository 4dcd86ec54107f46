import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface ToastSpec {
  kind: 'error' | 'info' | 'progress';
  message: string;
  /** 0..1 for a determinate bar; undefined for none. */
  progress?: number;
  actions?: ToastAction[];
  /** Milliseconds until it closes itself; progress toasts stay until closed. */
  timeoutMs?: number;
}

export interface Toasts {
  show(spec: ToastSpec): number;
  update(id: number, spec: Partial<ToastSpec>): void;
  close(id: number): void;
  /** Shorthand for a failure: the message as the service worded it. */
  error(message: string): number;
}

const ToastContext = createContext<Toasts | null>(null);

/** Brief messages in the corner: errors as alerts, progress with Cancel as status. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Array<ToastSpec & { id: number }>>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const close = useCallback((id: number) => {
    clearTimeout(timers.current.get(id));
    timers.current.delete(id);
    setToasts((list) => list.filter((t) => t.id !== id));
  }, []);

  const arm = useCallback(
    (id: number, spec: ToastSpec) => {
      clearTimeout(timers.current.get(id));
      const timeout = spec.timeoutMs ?? (spec.kind === 'progress' ? undefined : spec.kind === 'error' ? 8000 : 4000);
      if (timeout !== undefined)
        timers.current.set(
          id,
          setTimeout(() => close(id), timeout),
        );
    },
    [close],
  );

  const api = useMemo<Toasts>(
    () => ({
      show(spec) {
        const id = nextId.current++;
        setToasts((list) => [...list.slice(-4), { ...spec, id }]);
        arm(id, spec);
        return id;
      },
      update(id, patch) {
        setToasts((list) => list.map((t) => (t.id === id ? { ...t, ...patch } : t)));
        if (patch.timeoutMs !== undefined || patch.kind) arm(id, { kind: patch.kind ?? 'info', ...patch } as ToastSpec);
      },
      close,
      error(message) {
        return this.show({ kind: 'error', message });
      },
    }),
    [arm, close],
  );

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="toasts">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`toast toast-${toast.kind}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
          >
            <span className="toast-icon" aria-hidden>
              {toast.kind === 'error' ? '!' : toast.kind === 'progress' ? '⟳' : 'i'}
            </span>
            <div className="toast-body">
              <div className="toast-message">{toast.message}</div>
              {toast.progress !== undefined && (
                <div
                  className="toast-bar"
                  role="progressbar"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(toast.progress * 100)}
                >
                  <div style={{ width: `${Math.round(toast.progress * 100)}%` }} />
                </div>
              )}
            </div>
            {toast.actions?.map((action) => (
              <button key={action.label} type="button" className="btn btn-small" onClick={action.run}>
                {action.label}
              </button>
            ))}
            {toast.kind !== 'progress' && (
              <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => close(toast.id)}>
                ×
              </button>
            )}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToasts outside ToastProvider');
  return toasts;
}
