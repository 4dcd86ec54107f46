import { usePrefs } from '../ui';

/** Whether diffs show side by side (the operator's preference, on unless turned off). */
export function useDiffSideBySide(): boolean {
  const { prefs } = usePrefs();
  return prefs?.diffSideBySide ?? true;
}

/** The header button every diff shares: switches the preference, so all diffs follow it. */
export function SideBySideToggle() {
  const { setPref } = usePrefs();
  const sideBySide = useDiffSideBySide();
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-pressed={sideBySide}
      onClick={() => setPref('diffSideBySide', !sideBySide)}
    >
      {sideBySide ? 'Inline' : 'Side by side'}
    </button>
  );
}
