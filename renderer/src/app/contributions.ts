import { AgentReviewSlot } from '../agent-review';
import { parseDataViewerTab } from '../../../shared/contract';
import { registerMenuItem } from '../commands';
import { DataViewerDocument } from '../data-viewer';
import { ProposalReviewSlot } from '../edit-assistant';
import { registerCodeEditorContribution, registerDocumentView, registerEditorOverlay } from '../editor';
import { OpenChangesSlot, openChangesMenuItem } from '../git-changes';
import { cellDebugMarks, debugCellAction, fileDebugMarks } from '../debugger';
import { OutputList, registerCellAction, registerCellEditorContribution } from '../notebook';
import { registerCellOutputView } from '../notebook-diff';
import { openTimelineMenuItem, TimelineDiffSlot } from '../timeline';

// What features add to the editor and the explorer, registered here so that neither imports the features above
// it. Overlays in this order: a proposal under review for the active file, then a version picked in the Timeline.
registerEditorOverlay({ id: 'edit-assistant.review', component: ProposalReviewSlot });
registerEditorOverlay({ id: 'timeline.diff', component: TimelineDiffSlot });
// An Agent turn's changes to a notebook, to keep or undo cell by cell.
registerEditorOverlay({ id: 'agent-review.notebook', component: AgentReviewSlot });
// Open Changes (the file at git HEAD ↔ the working tree) also registers the palette's command for the active file.
registerEditorOverlay({ id: 'git-changes.open', component: OpenChangesSlot });
registerMenuItem('editor/context', openTimelineMenuItem);
registerMenuItem('explorer/context', openTimelineMenuItem);
registerMenuItem('editor/context', openChangesMenuItem);
registerMenuItem('explorer/context', openChangesMenuItem);
// The notebook diff (below the notebook: the notebook opens it) draws outputs with the notebook's renderers.
registerCellOutputView(OutputList);
// A kernel variable as a grid (Variables' "View Data"): tabs keyed `<notebook>::data/<name>`, never read from disk.
registerDocumentView({
  id: 'data-viewer',
  matches: (path) => parseDataViewerTab(path) !== null,
  component: DataViewerDocument,
  ownsDocument: true,
  readOnly: true,
});
// The debugger's marks in code cells (breakpoints, the paused line) and the cell toolbar's Debug Cell.
registerCellEditorContribution(cellDebugMarks);
registerCellAction(debugCellAction);
// The same marks in a .py file open in the text editor (a module a cell calls into).
registerCodeEditorContribution(fileDebugMarks);
