import type { Prefs } from '../../../shared/contract';
import { useBridge } from '../base';
import { useCommands } from '../commands';
import { inspectAtCursor, kernelKeyApplies, showKernelCompletions } from './kernel-assist';

/**
 * The kernel's help as commands: Tab and Shift+Tab go through the one registry (before Monaco sees them, and
 * only where kernelKeyApplies), and the palette lists them with the timing preference.
 */
export function useKernelAssistCommands(
  prefs: Prefs | null,
  setPref: <K extends keyof Prefs>(key: K, value: Prefs[K]) => void,
): void {
  const bridge = useBridge();
  const recording = prefs?.notebookRecordTiming ?? false;
  useCommands([
    {
      id: 'notebook.kernelComplete',
      title: 'Show Kernel Completions',
      category: 'Notebook',
      keys: 'Tab',
      when: () => kernelKeyApplies(bridge),
      run: () => showKernelCompletions(bridge),
    },
    {
      id: 'notebook.kernelInspect',
      title: 'Show Kernel Docstring (again for more)',
      category: 'Notebook',
      keys: 'Shift+Tab',
      when: () => kernelKeyApplies(bridge),
      run: () => inspectAtCursor(bridge),
    },
    {
      id: 'notebook.toggleRecordTiming',
      title: recording ? 'Stop Recording Cell Timing in Metadata' : 'Record Cell Timing in Metadata',
      category: 'Notebook',
      run: () => setPref('notebookRecordTiming', !recording),
    },
  ]);
}
