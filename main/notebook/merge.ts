import { KilnError } from '../../shared/errors';
import {
  buildMergedNotebook,
  mergeNotebooks,
  planNotebookDiff,
  type MergeResolution,
  type NotebookMerge,
  type NotebookMergeOptions,
} from '../../shared/notebook-diff';
import { carryExactNumbers, exactNumberText, keepExactNumber, parsePythonJson } from './exact-json';
import { newCellId, serializeNotebook, validateNotebook, type NotebookJson } from './format';

/*
 * The three-way notebook merge on files: git's three versions as text in, the resolver's view out, and for a set
 * of resolutions the bytes Jupyter writes for the merged notebook (exact-json keeps number literals as written).
 */

/** The three versions of a conflicted notebook; base is null when both sides added the file. */
export interface NotebookMergeTexts {
  base: string | null;
  ours: string;
  theirs: string;
}

const HOOKS: NotebookMergeOptions = { exactNumberText, keepExactNumber };

function parseVersion(text: string, name: string): NotebookJson {
  let data: unknown;
  try {
    data = parsePythonJson(text);
  } catch (err) {
    const reason = `${name} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
    throw new KilnError('E_INVALID_NOTEBOOK', `Cannot merge: ${reason}`, { reason });
  }
  const nb = data as Partial<NotebookJson> | null;
  const problem =
    !nb || typeof nb !== 'object' || Array.isArray(nb) || !Array.isArray(nb.cells)
      ? `${name} has no "cells" list`
      : nb.cells.some((cell) => typeof cell !== 'object' || cell === null || Array.isArray(cell))
        ? `a cell of ${name} is not an object`
        : null;
  if (problem) throw new KilnError('E_INVALID_NOTEBOOK', `Cannot merge: ${problem}`, { reason: problem });
  return nb as NotebookJson;
}

/**
 * A base for a file both sides added: what they have in common (cells equal on both sides, in order, and equal
 * metadata keys), so only what differs is a conflict rather than the whole notebook.
 */
function commonBase(ours: NotebookJson, theirs: NotebookJson): NotebookJson {
  const plan = planNotebookDiff(ours, theirs, { exactNumberText });
  const cells = ours.cells.filter((_cell, i) => plan.byOldIndex[i]?.status === 'unchanged');
  const changed = new Set(plan.diff.notebook?.metadata.map((change) => change.key) ?? []);
  const metadata = Object.fromEntries(Object.entries(ours.metadata ?? {}).filter(([key]) => !changed.has(key)));
  return { ...ours, cells, metadata: carryExactNumbers(ours.metadata ?? {}, metadata) };
}

interface ParsedVersions {
  base: NotebookJson;
  ours: NotebookJson;
  theirs: NotebookJson;
}

function parseVersions(texts: NotebookMergeTexts): ParsedVersions {
  const ours = parseVersion(texts.ours, 'our version');
  const theirs = parseVersion(texts.theirs, 'their version');
  const base = texts.base === null ? commonBase(ours, theirs) : parseVersion(texts.base, 'the common base');
  return { base, ours, theirs };
}

/** The merge of a conflicted notebook's three versions, for the resolver. Throws E_INVALID_NOTEBOOK for a version that is not a notebook. */
export function mergeNotebookTexts(texts: NotebookMergeTexts): NotebookMerge {
  const { base, ours, theirs } = parseVersions(texts);
  return mergeNotebooks(base, ours, theirs, HOOKS);
}

/** From 4.5 every cell has an id of its own: a repeat (a cell kept twice by "both") or a 4.4 cell gets a fresh one. */
function fixIds(result: NotebookJson): void {
  const minor = typeof result.nbformat_minor === 'number' ? result.nbformat_minor : 0;
  if (result.nbformat !== 4 || minor < 5) return;
  const taken = new Set<string>();
  const keep = result.cells.map((cell) => {
    if (typeof cell.id !== 'string' || taken.has(cell.id)) return false;
    taken.add(cell.id);
    return true;
  });
  result.cells = result.cells.map((cell, k) =>
    keep[k] ? cell : carryExactNumbers(cell, { ...cell, id: newCellId(taken) }),
  );
}

/**
 * The bytes of the merged notebook under `resolutions` (one per conflict id of the merge), as Jupyter writes
 * them. E_BAD_REQUEST for a missing or unknown resolution, E_INVALID_NOTEBOOK when a version is not a notebook
 * or the result would not validate.
 */
export function resolveNotebookMerge(
  texts: NotebookMergeTexts,
  resolutions: Readonly<Record<string, MergeResolution>>,
): string {
  const { base, ours, theirs } = parseVersions(texts);
  const result = buildMergedNotebook(base, ours, theirs, resolutions, HOOKS) as NotebookJson;
  fixIds(result);
  const minor = typeof result.nbformat_minor === 'number' ? result.nbformat_minor : 0;
  const reason = validateNotebook(result, minor);
  if (reason)
    throw new KilnError('E_INVALID_NOTEBOOK', `The resolved merge would make an invalid notebook: ${reason}`, {
      reason,
    });
  return serializeNotebook(result);
}
