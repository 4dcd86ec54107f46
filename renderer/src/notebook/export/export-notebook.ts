import type { KilnBridge } from '../../../../shared/contract';
import { KilnError } from '../../../../shared/errors';
import { nameOf, parentOf } from '../../../../shared/paths';
import type { DialogRequest } from '../../ui';
import type { NotebookSession } from '../notebook-session';
import { loadKatex } from '../renderers/math';
import { plotlyToSvg, vegaToSvg } from './chart-svg';
import { withoutNetworkLoads } from './offline-html';
import { notebookForHtml, notebookJson } from './prepare';

export type ExportKind = 'html' | 'script';

export interface ExportDeps {
  bridge: KilnBridge;
  ask: <V extends string>(request: DialogRequest<V>) => Promise<V>;
}

/** `dir/name.ipynb` -> `dir/name.html` (or `.py`). */
export function exportTarget(path: string, extension: string): string {
  const name = nameOf(path).replace(/\.ipynb$/i, '') + extension;
  const dir = parentOf(path);
  return dir ? `${dir}/${name}` : name;
}

/**
 * Exports the notebook as the view shows it, through the Jupyter server's nbconvert, into a file beside it.
 * A name that is taken asks Replace / Keep both / Cancel, as a move does. Resolves the path written, or
 * null when the operator cancelled.
 */
export async function exportNotebook(
  session: NotebookSession,
  kind: ExportKind,
  deps: ExportDeps,
): Promise<string | null> {
  const { cells: views, metadata } = session.getState();
  const cells = views.map((view) => view.cell);
  const notebook =
    kind === 'html'
      ? await notebookForHtml(cells, metadata, await loadKatex(), { vega: vegaToSvg, plotly: plotlyToSvg })
      : notebookJson(cells, metadata);
  const converted = await deps.bridge.request('notebook.convert', {
    notebook: JSON.stringify(notebook),
    name: nameOf(session.path),
    format: kind,
  });
  const text = kind === 'html' ? withoutNetworkLoads(converted.text) : converted.text;
  let target = exportTarget(session.path, converted.extension);
  try {
    await deps.bridge.request('workspace.createFile', { path: target, text });
    return target;
  } catch (err) {
    if (!(err instanceof KilnError && err.code === 'E_EXISTS')) throw err;
  }
  const answer = await deps.ask({
    title: `"${nameOf(target)}" already exists`,
    message: `A file named "${nameOf(target)}" already exists beside the notebook. Replace it, keep both, or cancel the export?`,
    buttons: [
      { label: 'Replace', value: 'replace', danger: true },
      { label: 'Keep both', value: 'keep', primary: true },
      { label: 'Cancel', value: 'cancel' },
    ],
    cancelValue: 'cancel',
  });
  if (answer === 'cancel') return null;
  if (answer === 'replace') {
    await deps.bridge.request('workspace.write', { path: target, text });
    return target;
  }
  target = (await deps.bridge.request('workspace.nextFreeName', { dir: parentOf(target), name: nameOf(target) })).path;
  await deps.bridge.request('workspace.createFile', { path: target, text });
  return target;
}
