import { Store } from '../base';
import { NotebookActions, type NotebookActionsOptions } from './notebook-actions';
import { NotebookSelection } from './notebook-selection';
import type { NotebookSession } from './notebook-session';
import { CellUndo } from './notebook-undo';
import { initialViewState, viewState, type NotebookViewState } from './notebook-view-state';
import type { CellActions, EditorHandle } from './types';

export type { NotebookMode, NotebookViewState } from './notebook-view-state';
export type { ReplaceStep } from './notebook-undo';

type Selection = NotebookSelection;
type Actions = NotebookActions;

/**
 * What the notebook view does with the operator's intent, as one object the keys, the toolbar and each cell drive:
 * the session holds the document; this holds the view's state and composes its three parts, the selection
 * (`notebook-selection.ts`), the undo (`notebook-undo.ts`) and the actions (`notebook-actions.ts`).
 */
export class NotebookController extends Store<NotebookViewState> implements CellActions {
  readonly editors = new Map<string, EditorHandle>();
  readonly cellElements = new Map<string, HTMLDivElement>();
  private readonly selecting: NotebookSelection;
  private readonly history: CellUndo;
  private readonly actions: NotebookActions;

  constructor(
    readonly session: NotebookSession,
    options: NotebookActionsOptions,
  ) {
    super(initialViewState());
    const view = viewState(
      () => this.state,
      (patch) => this.set(patch),
    );
    this.selecting = new NotebookSelection(view, session);
    this.history = new CellUndo(view, session, this.selecting, options.onError);
    this.actions = new NotebookActions(view, session, this.selecting, this.history, this.editors, options);
  }

  // The parts' members, bound at the call (the parts are made in the constructor, after these fields).

  keepSelection: Selection['keepSelection'] = () => this.selecting.keepSelection();
  selection: Selection['selection'] = () => this.selecting.selection();
  isSelected: Selection['isSelected'] = (cellId) => this.selecting.isSelected(cellId);
  extendBy: Selection['extendBy'] = (by) => this.selecting.extendBy(by);
  selectAll: Selection['selectAll'] = () => this.selecting.selectAll();
  pointerSelect: Selection['pointerSelect'] = (cellId, how) => this.selecting.pointerSelect(cellId, how);
  selectCells: Selection['selectCells'] = (...args) => this.selecting.selectCells(...args);
  focus: Selection['focus'] = (cellId, mode) => this.selecting.focus(cellId, mode);
  select: Selection['select'] = (cellId, mode) => this.selecting.select(cellId, mode);
  selectBy: Selection['selectBy'] = (by) => this.selecting.selectBy(by);

  undo: CellUndo['undo'] = () => this.history.undo();
  redo: CellUndo['redo'] = () => this.history.redo();

  run: Actions['run'] = (cellId, then) => this.actions.run(cellId, then);
  runScope: Actions['runScope'] = (cellId, scope) => this.actions.runScope(cellId, scope);
  runAll: Actions['runAll'] = () => this.actions.runAll();
  runSelection: Actions['runSelection'] = (then) => this.actions.runSelection(then);
  edit: Actions['edit'] = (cellId, source) => this.actions.edit(cellId, source);
  editorKey: Actions['editorKey'] = (cellId, key) => this.actions.editorKey(cellId, key);
  replaceSources: Actions['replaceSources'] = (edits) => this.actions.replaceSources(edits);
  putCell: Actions['putCell'] = (cell, at) => this.actions.putCell(cell, at);
  takeCell: Actions['takeCell'] = (cellId) => this.actions.takeCell(cellId);
  move: Actions['move'] = (cellId, by) => this.actions.move(cellId, by);
  moveTo: Actions['moveTo'] = (...args) => this.actions.moveTo(...args);
  remove: Actions['remove'] = (cellId) => this.actions.remove(cellId);
  copy: Actions['copy'] = (cellId) => this.actions.copy(cellId);
  cut: Actions['cut'] = (cellId) => this.actions.cut(cellId);
  paste: Actions['paste'] = (cellId, where) => this.actions.paste(cellId, where);
  pasteAt: Actions['pasteAt'] = (index, cells) => this.actions.pasteAt(index, cells);
  merge: Actions['merge'] = (cellId) => this.actions.merge(cellId);
  split: Actions['split'] = (cellId) => this.actions.split(cellId);
  insert: Actions['insert'] = (cellId, where) => this.actions.insert(cellId, where);
  insertBelowActive: Actions['insertBelowActive'] = () => this.actions.insertBelowActive();
  insertAt: Actions['insertAt'] = (index, type, mode) => this.actions.insertAt(index, type, mode);
  setType: Actions['setType'] = (cellId, type) => this.actions.setType(cellId, type);
  setHeading: Actions['setHeading'] = (cellId, level) => this.actions.setHeading(cellId, level);
  clear: Actions['clear'] = (cellId) => this.actions.clear(cellId);
  clearAll: Actions['clearAll'] = () => this.actions.clearAll();
  toggleOutputs: Actions['toggleOutputs'] = (cellId) => this.actions.toggleOutputs(cellId);
  toggleOutputScrolling: Actions['toggleOutputScrolling'] = (cellId) => this.actions.toggleOutputScrolling(cellId);
  toggleInput: Actions['toggleInput'] = (cellId) => this.actions.toggleInput(cellId);
  toggleLineNumbers: Actions['toggleLineNumbers'] = (cellId) => this.actions.toggleLineNumbers(cellId);
  toggleAllLineNumbers: Actions['toggleAllLineNumbers'] = () => this.actions.toggleAllLineNumbers();
  showsLineNumbers: Actions['showsLineNumbers'] = (cellId) => this.actions.showsLineNumbers(cellId);
  interrupt: Actions['interrupt'] = () => this.actions.interrupt();
  restart: Actions['restart'] = () => this.actions.restart();
  answer: Actions['answer'] = (cellId, value) => this.actions.answer(cellId, value);
  save: Actions['save'] = (force) => this.actions.save(force);
  saveAs: Actions['saveAs'] = (target) => this.actions.saveAs(target);
  revert: Actions['revert'] = () => this.actions.revert();

  registerEditor = (cellId: string, editor: EditorHandle | null): void => {
    if (editor) this.editors.set(cellId, editor);
    else this.editors.delete(cellId);
  };

  registerCell = (cellId: string, element: HTMLDivElement | null): void => {
    if (element) this.cellElements.set(cellId, element);
    else this.cellElements.delete(cellId);
  };
}
