/**
 * The benchmark's baseline: Monaco's diff editor alone, no app around it. Exposes
 * `window.runBareDiff(streamUrl, original, language)`: fetches a model's `propose_file` response (an
 * OpenAI-style event stream) and returns the ms from its last byte read to the diff painted, which covers
 * what Kiln does after that moment: parse the stream and the tool call's arguments, make the diff editor.
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

/** The proposed content: the tool call's arguments, gathered from the stream's deltas, parsed. */
function proposedContent(stream: string): string {
  let args = '';
  for (const event of stream.split('\n\n')) {
    if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
    const chunk = JSON.parse(event.slice(6)) as {
      choices: { delta: { tool_calls?: { function?: { arguments?: string } }[] } }[];
    };
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
  }
  return (JSON.parse(args) as { content: string }).content;
}

window.runBareDiff = async (streamUrl, original, language) => {
  const host = document.getElementById('host')!;
  const reader = (await fetch(streamUrl)).body!.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const start = performance.now();
  const decoder = new TextDecoder();
  const modified = proposedContent(chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join(''));
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
