import type * as monaco from 'monaco-editor';
import type { KilnBridge } from '../../../shared/contract';

/*
 * What features above the editor add to a text file's Monaco editor, registered by the app shell
 * (app/contributions.ts) so the editor imports none of them: the debugger's breakpoints and paused line in a
 * `.py` file, as VS Code's debug contribution draws them.
 */

/** The text editor a contribution is attached to. One editor shows the tab's file, whose path can change. */
export interface CodeEditorTarget {
  bridge: KilnBridge;
  /** The workspace-relative path of the file shown now (after a rename, the new one); null before one shows. */
  pathOf(model: monaco.editor.ITextModel | null): string | null;
  /** The element the editor is in: contributions may mark it (data attributes) for tests and styles. */
  host: HTMLElement;
}

/** Attaches to a text file's Monaco editor for as long as it lives; returns its detach. */
export type CodeEditorContribution = (
  editor: monaco.editor.IStandaloneCodeEditor,
  target: CodeEditorTarget,
) => () => void;

const contributions: CodeEditorContribution[] = [];

export function registerCodeEditorContribution(contribution: CodeEditorContribution): void {
  if (!contributions.includes(contribution)) contributions.push(contribution);
}

export function codeEditorContributions(): readonly CodeEditorContribution[] {
  return contributions;
}
