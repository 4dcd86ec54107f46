export { TimelinePanel } from './TimelinePanel';
export { TimelineDiffSlot } from './TimelineDiffSlot';
export { TimelineStore, useTimelineStore, type TimelineState } from './timeline-store';
export { TurnCheckpoint } from './TurnCheckpoint';
export { openTimelineMenuItem } from './menu-items';
