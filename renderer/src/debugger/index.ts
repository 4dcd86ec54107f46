import { Icon } from '../ui';
import { createElement } from 'react';
import type { CellActionContribution } from '../notebook';
import { cellDebugMarks } from './cell-debug-marks';
import { useDebuggerStore } from './debugger-store';

export { DebugPanel } from './DebugPanel';
export { cellDebugMarks };
export { fileDebugMarks } from './file-debug-marks';

/** The cell toolbar's "Debug Cell": runs the cell under the debugger. */
export const debugCellAction: CellActionContribution = {
  id: 'debugger.debugCell',
  label: 'Debug Cell',
  icon: createElement(Icon, { name: 'debug-alt', size: 14 }),
  run: ({ bridge, notebookPath, cellId }) => useDebuggerStore.of(bridge).debugCell(notebookPath, cellId),
};
