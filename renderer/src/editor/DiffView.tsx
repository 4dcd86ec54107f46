import { useEffect, useRef } from 'react';
import { useColorScheme } from '../ui';
import { languageForPath, monaco } from './monaco-setup';

export interface DiffViewProps {
  /** Used for the language only. */
  path: string;
  original: string;
  modified: string;
  sideBySide: boolean;
  /** What each side holds, as screen readers announce its text field (e.g. "app.py on disk"). */
  originalLabel: string;
  modifiedLabel: string;
  /** Lets the modified side be edited (the edit panel's proposals); read-only by default. */
  onModifiedChange?: (text: string) => void;
  className?: string;
}

/** A Monaco diff of two texts, inline or side by side. Reusable: the conflict bar's Compare and the agent's edit panel. */
export function DiffView({
  path,
  original,
  modified,
  sideBySide,
  originalLabel,
  modifiedLabel,
  onModifiedChange,
  className,
}: DiffViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const diff = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const onChange = useRef(onModifiedChange);
  onChange.current = onModifiedChange;
  const scheme = useColorScheme();

  useEffect(() => {
    const editor = monaco.editor.createDiffEditor(host.current!, {
      automaticLayout: true,
      readOnly: !onChange.current,
      originalEditable: false,
      renderSideBySide: sideBySide,
      // The operator's inline/side-by-side choice holds even in a narrow centre.
      useInlineViewWhenSpaceIsLimited: false,
      fontSize: 13,
      scrollBeyondLastLine: false,
      minimap: { enabled: false },
    });
    const language = languageForPath(path);
    const originalModel = monaco.editor.createModel(original, language);
    const modifiedModel = monaco.editor.createModel(modified, language);
    editor.setModel({ original: originalModel, modified: modifiedModel });
    const sub = modifiedModel.onDidChangeContent(() => onChange.current?.(modifiedModel.getValue()));
    diff.current = editor;
    return () => {
      sub.dispose();
      editor.dispose();
      originalModel.dispose();
      modifiedModel.dispose();
      diff.current = null;
    };
    // The models are created once per path; text updates are pushed below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path]);

  useEffect(() => {
    const model = diff.current?.getModel();
    if (model && model.original.getValue() !== original) model.original.setValue(original);
  }, [original]);

  useEffect(() => {
    const model = diff.current?.getModel();
    if (model && model.modified.getValue() !== modified) model.modified.setValue(modified);
  }, [modified]);

  useEffect(() => {
    diff.current?.updateOptions({ renderSideBySide: sideBySide });
  }, [sideBySide]);

  useEffect(() => {
    diff.current?.getOriginalEditor().updateOptions({ ariaLabel: originalLabel });
    diff.current?.getModifiedEditor().updateOptions({ ariaLabel: modifiedLabel });
  }, [path, originalLabel, modifiedLabel]);

  useEffect(() => {
    monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs');
  }, [scheme]);

  return <div ref={host} className={`diff-view ${className ?? ''}`} data-testid="diff-view" />;
}
