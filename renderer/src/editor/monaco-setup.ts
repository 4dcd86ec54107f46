import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker?worker';
import CssWorker from 'monaco-editor/esm/vs/language/css/css.worker?worker';
import HtmlWorker from 'monaco-editor/esm/vs/language/html/html.worker?worker';
import TsWorker from 'monaco-editor/esm/vs/language/typescript/ts.worker?worker';
import { EditorExtensionsRegistry } from 'monaco-editor/esm/vs/editor/browser/editorExtensions.js';
import { nameOf } from '../../../shared/paths';

// Monaco is bundled: workers come from the app itself, never a CDN.
self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    switch (label) {
      case 'json':
        return new JsonWorker();
      case 'css':
      case 'scss':
      case 'less':
        return new CssWorker();
      case 'html':
      case 'handlebars':
      case 'razor':
        return new HtmlWorker();
      case 'typescript':
      case 'javascript':
        return new TsWorker();
      default:
        return new EditorWorker();
    }
  },
};

loader.config({ monaco });

/**
 * Monaco makes its inline-completions controller for every editor soon after the editor is made, and the
 * controller's view adds a <style> element to the page each time (and its constructor changes the shared
 * configuration, which re-reads every model's options). Each new style sheet makes Chromium check the whole
 * page against it: about 16 ms an editor in a notebook full of formulas, seconds when one opens. Kiln offers
 * no inline completions, so the controller is made only if something asks for it (as a hover does).
 */
const INLINE_COMPLETIONS = 'editor.contrib.inlineCompletionsController';
/** `EditorContributionInstantiation.Lazy` in Monaco's source (a const enum, so not in its JavaScript). */
const LAZY = 4;
for (const contribution of EditorExtensionsRegistry.getEditorContributions()) {
  if (contribution.id === INLINE_COMPLETIONS) contribution.instantiation = LAZY;
}

export { monaco };

/** Monaco's language id for a file name, from the languages Monaco registers. */
export function languageForPath(path: string): string {
  const name = nameOf(path);
  const lower = name.toLowerCase();
  for (const language of monaco.languages.getLanguages()) {
    if (language.filenames?.some((f) => f.toLowerCase() === lower)) return language.id;
  }
  const dot = lower.lastIndexOf('.');
  if (dot >= 0) {
    const ext = lower.slice(dot);
    for (const language of monaco.languages.getLanguages()) {
      if (language.extensions?.includes(ext)) return language.id;
    }
  }
  return 'plaintext';
}
