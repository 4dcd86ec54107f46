import type { ComponentType } from 'react';
import type { NotebookOutput } from '../../../shared/contract';

/*
 * How the diff draws a cell's outputs: with the notebook's own renderers, which sit above this folder (the notebook
 * opens this view for its changed-on-disk compare). The notebook feature registers its output list from app/.
 */

export interface CellOutputViewProps {
  outputs: NotebookOutput[];
  executionCount: number | null;
  exactNumbers?: Readonly<Record<string, string>>;
}

// process-wide: a contribution point the notebook fills at start-up, the same for every window.
let outputView: ComponentType<CellOutputViewProps> | null = null;

export function registerCellOutputView(view: ComponentType<CellOutputViewProps>): void {
  outputView = view;
}

/** The registered output list; null before app/ registered it (unit tests of the view alone). */
export function cellOutputView(): ComponentType<CellOutputViewProps> | null {
  return outputView;
}
