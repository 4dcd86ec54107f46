import type { PackedSearchFile, SearchFileResult, SearchMatch } from './contract';

/** A file's matches in the wire's column form (see PackedSearchFile). */
export function packSearchFile(file: SearchFileResult): PackedSearchFile {
  const { matches } = file;
  const numbers = new Array<number>(matches.length * 4);
  const previews = new Array<string>(matches.length);
  let cells: PackedSearchFile['cells'];
  for (let i = 0; i < matches.length; i++) {
    const match = matches[i];
    numbers[4 * i] = match.line;
    numbers[4 * i + 1] = match.start;
    numbers[4 * i + 2] = match.end;
    numbers[4 * i + 3] = match.previewStart;
    previews[i] = match.preview;
    if (match.cell) (cells ??= new Array(matches.length).fill(null))[i] = match.cell;
  }
  return cells ? { path: file.path, numbers, previews, cells } : { path: file.path, numbers, previews };
}

/** The matches a packed file stands for, as the Search view holds them. */
export function unpackSearchFile(packed: PackedSearchFile): SearchFileResult {
  const { numbers, previews, cells } = packed;
  const matches = new Array<SearchMatch>(previews.length);
  for (let i = 0; i < previews.length; i++) {
    const match: SearchMatch = {
      line: numbers[4 * i],
      start: numbers[4 * i + 1],
      end: numbers[4 * i + 2],
      preview: previews[i],
      previewStart: numbers[4 * i + 3],
    };
    const cell = cells?.[i];
    if (cell) match.cell = cell;
    matches[i] = match;
  }
  return { path: packed.path, matches };
}
