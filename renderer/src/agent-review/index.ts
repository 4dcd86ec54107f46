export { AgentReviewSlot } from './AgentReviewSlot';
export { TurnNotebookCells, useTurnNotebooks } from './TurnNotebookCells';
export { AgentCellMarkButton, useAgentCellMarks } from './AgentCellMark';
export { useAgentReviewStore, type AgentCellMark } from './agent-review-store';
export { undoTurnInOpenNotebooks } from './undo-in-notebook';
