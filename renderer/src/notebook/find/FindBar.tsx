import { useEffect, useRef } from 'react';
import { useStore } from '../../base';
import { ArrowDownIcon, ArrowUpIcon, ChevronIcon, Icon, XIcon } from '../../ui';
import type { FindController } from './find-controller';
import type { FindQuery } from './find-model';

/** VS Code's glyphs for the toggles: icons, so each button's name is what a speech user says (WCAG 2.5.3). */
const TOGGLES: { name: string; key: keyof Omit<FindQuery, 'text'>; icon: string }[] = [
  { name: 'Match Case', key: 'matchCase', icon: 'case-sensitive' },
  { name: 'Whole Word', key: 'wholeWord', icon: 'whole-word' },
  { name: 'Use Regular Expression', key: 'regex', icon: 'regex' },
];

const STEPS = [
  { name: 'Previous match', key: 'Shift+F3', Icon: ArrowUpIcon, step: 'previous' },
  { name: 'Next match', key: 'F3', Icon: ArrowDownIcon, step: 'next' },
] as const;

/** The notebook's find (and replace) bar: one search over every cell, wherever it is and however it is folded. */
export function FindBar({ find, onClose }: { find: FindController; onClose: () => void }) {
  const state = useStore(find);
  const input = useRef<HTMLInputElement>(null);
  const { query, matches, current, error } = state;

  useEffect(() => {
    if (!state.open) return;
    input.current?.focus();
    input.current?.select();
  }, [state.open, state.focusTick]);

  if (!state.open) return null;

  const close = () => {
    find.close();
    onClose();
  };
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') close();
    else if (event.key === 'Enter' && event.target === input.current) (event.shiftKey ? find.previous : find.next)();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };
  const count = error
    ? error
    : !query.text
      ? ''
      : matches.length === 0
        ? 'No results'
        : `${current === null ? '?' : (current + 1).toLocaleString()} of ${matches.length.toLocaleString()}`;
  const sourceMatches = matches.filter((m) => m.area === 'source').length;

  return (
    <div role="search" aria-label="Find in notebook" className="nb-find" onKeyDown={onKeyDown}>
      <button
        type="button"
        className="nb-find-expand"
        aria-label="Toggle Replace"
        aria-expanded={state.replacing}
        title="Toggle Replace (Ctrl+H)"
        onClick={find.toggleReplace}
      >
        <ChevronIcon open={state.replacing} />
      </button>
      <div className="nb-find-rows">
        <div className="nb-find-row">
          <div className="nb-find-box">
            <input
              ref={input}
              className="nb-find-input"
              aria-label="Find"
              placeholder="Find"
              spellCheck={false}
              value={query.text}
              aria-invalid={error ? true : undefined}
              onChange={(e) => find.setQuery({ text: e.target.value })}
            />
            {TOGGLES.map((t) => (
              <button
                key={t.key}
                type="button"
                className="nb-find-toggle"
                aria-label={t.name}
                aria-pressed={query[t.key]}
                title={t.name}
                onClick={() => find.setQuery({ [t.key]: !query[t.key] })}
              >
                <Icon name={t.icon} />
              </button>
            ))}
          </div>
          <span className={`nb-find-count${error ? ' error' : ''}`} aria-live="polite">
            {count}
          </span>
          <button
            type="button"
            className="nb-find-toggle nb-find-outputs"
            aria-label="Search outputs"
            aria-pressed={query.inOutputs}
            title="Also search text outputs (read-only)"
            onClick={() => find.setQuery({ inOutputs: !query.inOutputs })}
          >
            Outputs
          </button>
          {STEPS.map(({ name, key, Icon, step }) => (
            <button
              key={name}
              type="button"
              className="icon-btn"
              aria-label={name}
              title={`${name} (${key})`}
              disabled={!matches.length}
              onClick={find[step]}
            >
              <Icon />
            </button>
          ))}
          <button type="button" className="icon-btn" aria-label="Close find" title="Close (Escape)" onClick={close}>
            <XIcon />
          </button>
        </div>
        {state.replacing && (
          <div className="nb-find-row">
            <div className="nb-find-box">
              <input
                className="nb-find-input"
                aria-label="Replace"
                placeholder="Replace"
                spellCheck={false}
                value={state.replacement}
                onChange={(e) => find.setReplacement(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key !== 'Enter') return;
                  e.preventDefault();
                  e.stopPropagation();
                  void (e.ctrlKey || e.metaKey ? find.replaceAll() : find.replaceCurrent());
                }}
              />
            </div>
            <button
              type="button"
              className="btn btn-small"
              disabled={current === null || matches[current]?.area !== 'source'}
              onClick={() => void find.replaceCurrent()}
            >
              Replace
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={!sourceMatches}
              onClick={() => void find.replaceAll()}
            >
              Replace All
            </button>
            {/* Gone once Z took it back (a redo brings it back): the button is the notebook's undo of that step. */}
            {state.lastReplaceAll && (state.lastReplaceAll.step?.isLatest() ?? true) && (
              <button type="button" className="btn btn-small" onClick={() => void find.undoReplaceAll()}>
                Undo Replace All ({state.lastReplaceAll.count})
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
