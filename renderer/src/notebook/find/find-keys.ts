import { useCommands } from '../../commands';
import type { CollapseActions } from '../collapse';
import { cellHeading, isHeadingCollapsed } from '../sections';
import type { NotebookController } from '../notebook-controller';
import type { FindController } from './find-controller';

/**
 * The notebook's find keys (Ctrl/Cmd+F, Ctrl/Cmd+H, F3, Shift+F3, while the notebook has focus) and
 * JupyterLab's collapsible-heading keys in command mode (← collapses, → expands), with their palette entries.
 */
export function useFindAndCollapseKeys({
  find,
  collapse,
  notebook,
  hasFocus,
  inCommandMode,
  selectedText,
}: {
  find: FindController;
  collapse: CollapseActions;
  notebook: NotebookController;
  /** Focus is somewhere in this notebook (a cell, an editor, the find bar). */
  hasFocus: () => boolean;
  inCommandMode: () => boolean;
  /** The text selected in the focused cell editor, to seed the find field. */
  selectedText: () => string | undefined;
}): void {
  const activeHeading = () => {
    const id = notebook.getState().activeId;
    const view = id ? notebook.session.cell(id) : undefined;
    return view && cellHeading(view.cell) ? view.cell : null;
  };
  useCommands([
    {
      id: 'notebook.find',
      title: 'Find in Notebook',
      category: 'Notebook',
      keys: 'Mod+F',
      when: hasFocus,
      run: () => find.show(false, selectedText()),
    },
    {
      id: 'notebook.replace',
      title: 'Replace in Notebook',
      category: 'Notebook',
      keys: 'Mod+H',
      when: hasFocus,
      run: () => find.show(true, selectedText()),
    },
    {
      id: 'notebook.findNext',
      title: 'Find Next in Notebook',
      category: 'Notebook',
      keys: 'F3',
      when: () => hasFocus() && find.getState().open,
      run: find.next,
    },
    {
      id: 'notebook.findPrevious',
      title: 'Find Previous in Notebook',
      category: 'Notebook',
      keys: 'Shift+F3',
      when: () => hasFocus() && find.getState().open,
      run: find.previous,
    },
    {
      id: 'notebook.collapseHeading',
      title: 'Collapse Heading',
      category: 'Notebook',
      keys: 'ArrowLeft',
      when: inCommandMode,
      run: () => {
        const id = notebook.getState().activeId;
        const heading = id ? collapse.collapseSectionOf(id) : null;
        if (heading && heading !== id) notebook.focus(heading, 'command');
      },
    },
    {
      id: 'notebook.expandHeading',
      title: 'Expand Heading',
      category: 'Notebook',
      keys: 'ArrowRight',
      when: () => inCommandMode() && Boolean(activeHeading()),
      run: () => {
        const heading = activeHeading();
        if (heading && isHeadingCollapsed(heading)) void collapse.setHeadingCollapsed(heading.id, false);
      },
    },
    {
      id: 'notebook.collapseAllHeadings',
      title: 'Collapse All Headings',
      category: 'Notebook',
      run: () => collapse.setAllHeadings(true),
    },
    {
      id: 'notebook.expandAllHeadings',
      title: 'Expand All Headings',
      category: 'Notebook',
      run: () => collapse.setAllHeadings(false),
    },
  ]);
}
