import type * as monaco from 'monaco-editor';
import type { ReactNode } from 'react';
import type { KilnBridge } from '../../../shared/contract';

/*
 * What features above the notebook add to its cells, registered by the app shell (app/contributions.ts), so
 * the notebook imports none of them: the debugger's breakpoints and current line in a code cell's editor, and
 * its "Debug Cell" button in the cell toolbar.
 */

/** The code cell an editor contribution is attached to. */
export interface CellEditorTarget {
  bridge: KilnBridge;
  cellId: string;
  /** The notebook the cell belongs to (the active document when the editor was made). */
  notebookPath: string | null;
  /** The element the editor is in: contributions may mark it (data attributes) for tests and styles. */
  host: HTMLElement;
}

/** Attaches to a code cell's Monaco editor for as long as it lives; returns its detach. */
export type CellEditorContribution = (
  editor: monaco.editor.IStandaloneCodeEditor,
  target: CellEditorTarget,
) => () => void;

export interface CellActionContribution {
  id: string;
  /** The button's accessible name and tooltip, e.g. "Debug Cell". */
  label: string;
  icon: ReactNode;
  run: (target: { bridge: KilnBridge; notebookPath: string; cellId: string }) => void | Promise<void>;
}

const editorContributions: CellEditorContribution[] = [];
const cellActions: CellActionContribution[] = [];

export function registerCellEditorContribution(contribution: CellEditorContribution): void {
  if (!editorContributions.includes(contribution)) editorContributions.push(contribution);
}

/** Adds a button to every code cell's toolbar; registering an id again does nothing. */
export function registerCellAction(action: CellActionContribution): void {
  if (!cellActions.some((a) => a.id === action.id)) cellActions.push(action);
}

export function cellEditorContributions(): readonly CellEditorContribution[] {
  return editorContributions;
}

export function codeCellActions(): readonly CellActionContribution[] {
  return cellActions;
}
