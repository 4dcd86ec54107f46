import type { KilnBridge } from '../../../../shared/contract';
import { makeAllOutputs } from '../DeferredOutputs';

/**
 * "Export as PDF" prints Kiln's own rendered notebook (math, charts and all; no TeX needed): print.css lays
 * out only the marked notebook, all its cells, for paper. Under Electron main prints the page with printToPDF
 * and saves where the operator chooses; in a browser the print dialog offers "Save as PDF".
 * Resolves the file saved, or null (cancelled, or left to the print dialog).
 */
export async function exportPdf(bridge: KilnBridge, path: string): Promise<string | null> {
  const section = document.querySelector<HTMLElement>(`section.nb[data-path="${CSS.escape(path)}"]`);
  if (!section) return null;
  const done = markForPrint(section);
  let answer: Awaited<ReturnType<typeof bridge.request<'notebook.exportPdf'>>>;
  try {
    await outputsMade(section);
    answer = await bridge.request('notebook.exportPdf', { path });
  } catch (err) {
    done();
    throw err;
  }
  if (answer.status === 'print-dialog') {
    window.addEventListener('afterprint', done, { once: true });
    window.print();
    return null;
  }
  done();
  return answer.status === 'saved' ? answer.file : null;
}

/** Marks the notebook as the one the print stylesheet shows; the returned function unmarks it. */
function markForPrint(section: HTMLElement): () => void {
  document.body.classList.add('kiln-printing');
  section.classList.add('nb-printing');
  return () => {
    document.body.classList.remove('kiln-printing');
    section.classList.remove('nb-printing');
  };
}

/** Outputs far down are made as they come near (DeferredOutputs): for paper, all of them, painted. */
async function outputsMade(section: HTMLElement): Promise<void> {
  makeAllOutputs();
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
  // Bounded: a notebook whose outputs never settle still prints, as it is.
  for (let i = 0; i < 120 && section.querySelector('.nb-outputs-pending'); i++) await frame();
  await frame();
  await frame();
}
