/**
 * The benchmark's baseline: Monaco's diff editor alone, no app around it. Exposes
 * `window.runBareDiff(streamUrl, original, language)`: fetches a model's `propose_file` response (an
 * OpenAI-style event stream, its events parsed as they arrive, as Kiln's provider does) and returns the ms
 * from its last byte read to the diff painted, which covers what Kiln does after that moment: the rest of
 * the stream and the tool call's arguments parsed, the diff editor and its models made.
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import { waitForDiffPaint } from '../paint';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// Like the app, where the open file's model lives on: without a live model Monaco stops its worker
// after each diff and the next diff would pay for starting a new one.
monaco.editor.createModel('', 'python');

declare global {
  interface Window {
    runBareDiff(streamUrl: string, original: string, language: string): Promise<number>;
  }
}

/** The tool call's arguments from one event of the stream ('' for events without them). */
function argumentsIn(event: string): string {
  if (!event.startsWith('data: ') || event === 'data: [DONE]') return '';
  const chunk = JSON.parse(event.slice(6)) as {
    choices: { delta: { tool_calls?: { function?: { arguments?: string } }[] } }[];
  };
  let args = '';
  for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
  return args;
}

window.runBareDiff = async (streamUrl, original, language) => {
  const host = document.getElementById('host')!;
  const reader = (await fetch(streamUrl)).body!.getReader();
  const decoder = new TextDecoder();
  // As Kiln's provider does, events are parsed as they arrive; what is left at the end is the same.
  let buffered = '';
  let args = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    const events = buffered.split('\n\n');
    buffered = events.pop() ?? '';
    for (const event of events) args += argumentsIn(event);
  }
  const start = performance.now();
  args += argumentsIn(buffered);
  const modified = (JSON.parse(args) as { content: string }).content;
  // The options Kiln's DiffView uses.
  const editor = monaco.editor.createDiffEditor(host, {
    automaticLayout: true,
    readOnly: true,
    originalEditable: false,
    renderSideBySide: true,
    useInlineViewWhenSpaceIsLimited: false,
    fontSize: 13,
    scrollBeyondLastLine: false,
    minimap: { enabled: false },
  });
  const originalModel = monaco.editor.createModel(original, language);
  const modifiedModel = monaco.editor.createModel(modified, language);
  editor.setModel({ original: originalModel, modified: modifiedModel });
  const painted = await waitForDiffPaint(host);
  editor.dispose();
  originalModel.dispose();
  modifiedModel.dispose();
  return painted - start;
};
