import { registerMenuItem } from '../commands';
import { ProposalReviewSlot } from '../edit-assistant';
import { registerEditorOverlay } from '../editor';
import { OpenChangesSlot, openChangesMenuItem } from '../git-changes';
import { cellDebugMarks, debugCellAction } from '../debugger';
import { OutputList, registerCellAction, registerCellEditorContribution } from '../notebook';
import { registerCellOutputView } from '../notebook-diff';
import { openTimelineMenuItem, TimelineDiffSlot } from '../timeline';

// What features add to the editor and the explorer, registered here so that neither imports the features above
// it. Overlays in this order: a proposal under review for the active file, then a version picked in the Timeline.
registerEditorOverlay({ id: 'edit-assistant.review', component: ProposalReviewSlot });
registerEditorOverlay({ id: 'timeline.diff', component: TimelineDiffSlot });
// Open Changes (the file at git HEAD ↔ the working tree) also registers the palette's command for the active file.
registerEditorOverlay({ id: 'git-changes.open', component: OpenChangesSlot });
registerMenuItem('editor/context', openTimelineMenuItem);
registerMenuItem('explorer/context', openTimelineMenuItem);
registerMenuItem('editor/context', openChangesMenuItem);
registerMenuItem('explorer/context', openChangesMenuItem);
// The notebook diff (below the notebook: the notebook opens it) draws outputs with the notebook's renderers.
registerCellOutputView(OutputList);
// The debugger's marks in code cells (breakpoints, the paused line) and the cell toolbar's Debug Cell.
registerCellEditorContribution(cellDebugMarks);
registerCellAction(debugCellAction);
