import type { CSSProperties } from 'react';

/**
 * The style that names a tab as a CSS anchor (`--tab-anchor`): a tablist may hold only tabs, so a tab's
 * close button lives outside it and is drawn over the tab's end with CSS anchor positioning.
 */
export function tabAnchor(name: string): CSSProperties {
  return { '--tab-anchor': `--${name}` } as CSSProperties;
}
