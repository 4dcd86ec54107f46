import { newMarkTitle, type NewMark } from './change-marks';

/** The "new" badge of a file an agent created (VS Code's untracked "U", in the agent's colour), until it is opened. */
export function NewBadge({ mark }: { mark: NewMark | undefined }) {
  if (!mark) return null;
  return (
    // The N is CSS content: decoration, not part of the row's name (WCAG 2.5.3 compares the two).
    <span className={`new-mark new-by-${mark.origin}`} title={newMarkTitle(mark)} aria-hidden data-letter="N" />
  );
}
