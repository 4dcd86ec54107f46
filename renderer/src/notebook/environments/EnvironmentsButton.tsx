import { useEffect, useRef, useState } from 'react';
import type { KernelEnvironment, KernelEnvironmentList } from '../../../../shared/contract';
import { copyText, CopyIcon, Icon, useToasts } from '../../ui';
import './environments.css';

/** `.venv · Python 3.11.2`: how an environment reads in the picker. */
export function environmentLabel(env: KernelEnvironment): string {
  const version = env.pythonVersion ? `Python ${env.pythonVersion}` : 'Python (version unknown)';
  return `${env.kind === 'conda' && !env.inWorkspace ? `conda ${env.path}` : env.path} · ${version}`;
}

/**
 * The toolbar's "Python environments" button and its panel: every environment with its path and version, the ones
 * with ipykernel to pick, the others greyed with the command that installs it (copyable: Kiln runs nothing on the
 * network). In an untrusted folder it holds one line saying they appear once the folder is trusted.
 */
export function EnvironmentsButton({
  list,
  error,
  current,
  onPick,
  onOpen,
}: {
  list: KernelEnvironmentList | null;
  error: string | null;
  /** The notebook's kernelspec name now (an environment's id when it runs from one). */
  current: string;
  onPick: (id: string) => void;
  /** Opened: ask for the list again (cheap; the change feed keeps it current otherwise). */
  onOpen: () => void;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLSpanElement>(null);
  const toasts = useToasts();

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node))
        setOpen(false);
    };
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', close);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', close);
    };
  }, [open]);

  const copy = async (command: string) => {
    await copyText(command);
    toasts.show({ kind: 'info', message: `Copied: ${command}`, timeoutMs: 2500 });
  };

  const environments = list?.environments ?? [];
  return (
    <span className="nb-envs-anchor" ref={root}>
      <button
        type="button"
        className="nb-tool nb-envs-button"
        aria-label="Python environments"
        title="Python environments"
        aria-expanded={open}
        onClick={() => {
          if (!open) onOpen();
          setOpen(!open);
        }}
      >
        <Icon name="symbol-namespace" />
      </button>
      {open && (
        <div className="nb-envs" role="dialog" aria-label="Python environments">
          <div className="nb-envs-title">Python environments</div>
          {error && <p className="nb-envs-note">{error}</p>}
          {list?.note && <p className="nb-envs-note">{list.note}</p>}
          {list?.offered && !environments.length && (
            <p className="nb-envs-note">
              None found: no folder of the workspace holds a pyvenv.cfg (as .venv does), and conda lists none.
            </p>
          )}
          {environments.length > 0 && (
            <ul className="nb-envs-list" aria-label="Environments">
              {environments.map((env) => (
                <li
                  key={env.id}
                  className={`nb-env${env.hasIpykernel ? '' : ' nb-env-missing'}`}
                  aria-disabled={!env.hasIpykernel || undefined}
                >
                  <div className="nb-env-head">
                    <span className="nb-env-path" title={env.path}>
                      {env.kind === 'conda' && !env.inWorkspace ? `conda ${env.path}` : env.path}
                    </span>
                    <span className="nb-env-version">
                      {env.pythonVersion ? `Python ${env.pythonVersion}` : 'Python (version unknown)'}
                    </span>
                    {env.hasIpykernel ? (
                      <button
                        type="button"
                        className="btn btn-small"
                        disabled={env.id === current}
                        aria-label={`Use ${env.path}`}
                        onClick={() => {
                          setOpen(false);
                          onPick(env.id);
                        }}
                      >
                        {env.id === current ? 'In use' : 'Use'}
                      </button>
                    ) : (
                      <span className="nb-env-why">no ipykernel</span>
                    )}
                  </div>
                  {env.installCommand && (
                    <div className="nb-env-install">
                      <span>Install ipykernel there to use it (Kiln runs nothing on the network):</span>
                      <span className="nb-env-command">
                        <code>{env.installCommand}</code>
                        <button
                          type="button"
                          className="nb-tool"
                          aria-label={`Copy the install command for ${env.path}`}
                          title="Copy"
                          onClick={() => void copy(env.installCommand!)}
                        >
                          <CopyIcon />
                        </button>
                      </span>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </span>
  );
}
