import { useEffect, useMemo, useRef } from 'react';
import type { SearchMatch, SearchQuery } from '../../../shared/contract';
import { matchAt, replacementOf, searchRegExp } from '../../../shared/replace';
import { Icon } from '../ui';

/** The replace field under the search field, with Replace All beside it, as in VS Code. */
export function ReplaceField({
  value,
  focusTick,
  disabled,
  onChange,
  onReplaceAll,
}: {
  value: string;
  focusTick: number;
  /** No results, or a replace is running. */
  disabled: boolean;
  onChange: (value: string) => void;
  onReplaceAll: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusTick === 0) return;
    // After the search view's own mount effect, which focuses the search field (parents' effects run last).
    queueMicrotask(() => {
      input.current?.focus();
      input.current?.select();
    });
  }, [focusTick]);
  return (
    <div className="search-box replace-box">
      <input
        ref={input}
        className="search-input"
        aria-label="Replace"
        placeholder="Replace"
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          // Ctrl/Cmd+Alt+Enter is VS Code's Replace All from the field.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.altKey && !disabled) {
            e.preventDefault();
            onReplaceAll();
          }
        }}
      />
      <button
        type="button"
        className="search-toggle replace-all"
        aria-label="Replace All"
        title="Replace All (Ctrl+Alt+Enter)"
        disabled={disabled}
        onClick={onReplaceAll}
      >
        <Icon name="replace-all" />
      </button>
    </div>
  );
}

/** VS Code's chevron left of the fields: shows or hides the replace field. */
export function ReplaceToggle({ shown, onToggle }: { shown: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      className="replace-toggle"
      aria-label="Toggle Replace"
      title="Toggle Replace (Ctrl+Shift+H)"
      aria-expanded={shown}
      onClick={onToggle}
    >
      <Icon name={shown ? 'chevron-down' : 'chevron-right'} />
    </button>
  );
}

/**
 * A function giving what each match turns into, for the preview. It runs the query on the previewed line (so `$1`
 * shows its group); where context outside the preview decides the match, the bare replacement text is shown.
 */
export function useReplacementPreview(
  query: Required<SearchQuery>,
  replacement: string,
): (match: SearchMatch) => string {
  return useMemo(() => {
    let regex: RegExp | null = null;
    try {
      regex = searchRegExp(query);
    } catch {
      regex = null;
    }
    return (match: SearchMatch) => {
      const from = match.start - match.previewStart;
      const found = regex && matchAt(regex, match.preview, from, match.end - match.previewStart);
      return found ? replacementOf(found, replacement, query.isRegex) : replacement;
    };
  }, [query, replacement]);
}

/** Replace and Dismiss on a result row (a match, or a whole file). */
export function RowActions({
  what,
  canReplace,
  onReplace,
  onDismiss,
}: {
  what: 'match' | 'file';
  canReplace: boolean;
  onReplace: () => void;
  onDismiss: () => void;
}) {
  const stop = (run: () => void) => (event: React.MouseEvent) => {
    event.stopPropagation();
    run();
  };
  return (
    <span className="search-actions">
      {canReplace && (
        <button
          type="button"
          className="icon-btn"
          aria-label={what === 'file' ? 'Replace All in File' : 'Replace'}
          title={what === 'file' ? 'Replace All in File' : 'Replace'}
          onClick={stop(onReplace)}
        >
          <Icon name={what === 'file' ? 'replace-all' : 'replace'} />
        </button>
      )}
      <button type="button" className="icon-btn" aria-label="Dismiss" title="Dismiss" onClick={stop(onDismiss)}>
        <Icon name="close" />
      </button>
    </span>
  );
}
