import { registerMenuItem } from '../commands';
import { ProposalReviewSlot } from '../edit-assistant';
import { registerEditorOverlay } from '../editor';
import { OutputList } from '../notebook';
import { registerCellOutputView } from '../notebook-diff';
import { openTimelineMenuItem, TimelineDiffSlot } from '../timeline';

// What features add to the editor and the explorer, registered here so that neither imports the features above
// it. Overlays in this order: a proposal under review for the active file, then a version picked in the Timeline.
registerEditorOverlay({ id: 'edit-assistant.review', component: ProposalReviewSlot });
registerEditorOverlay({ id: 'timeline.diff', component: TimelineDiffSlot });
registerMenuItem('editor/context', openTimelineMenuItem);
registerMenuItem('explorer/context', openTimelineMenuItem);
// The notebook diff (below the notebook: the notebook opens it) draws outputs with the notebook's renderers.
registerCellOutputView(OutputList);
