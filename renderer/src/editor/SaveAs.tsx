import { useState } from 'react';

/**
 * Save As for a tab whose file went away: a button, then a path field; `onSave` writes there and
 * resolves once the tab carries on at the new file (a rejection keeps the field open).
 */
export function SaveAs({ path, onSave }: { path: string; onSave: (target: string) => Promise<void> }) {
  const [target, setTarget] = useState<string | null>(null);
  if (target === null) {
    return (
      <button type="button" className="btn btn-small btn-primary" onClick={() => setTarget(path)}>
        Save As…
      </button>
    );
  }
  const save = () => {
    const to = target.trim();
    if (to)
      onSave(to).then(
        () => setTarget(null),
        () => undefined,
      );
  };
  return (
    <form
      className="save-as"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <input
        aria-label="Save as path"
        className="save-as-input"
        value={target}
        autoFocus
        onChange={(e) => setTarget(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && setTarget(null)}
      />
      <button type="submit" className="btn btn-small btn-primary">
        Save
      </button>
    </form>
  );
}
