import type { MenuItemContribution } from '../commands';
import { useTimelineStore } from './timeline-store';

/** "Open Timeline": a file's local history, from the editor's and the explorer's context menus (app/ adds it). */
export const openTimelineMenuItem: MenuItemContribution = {
  id: 'openTimeline',
  title: 'Open Timeline',
  run: ({ bridge, path }) => useTimelineStore.of(bridge).show(path),
};
