import type { DocumentSymbol } from '../../../shared/contract';

/** One entry of a text file's outline: what it is called, how deep it sits, and its line (1-based). */
export interface OutlineEntry {
  text: string;
  level: number;
  line: number;
  /** Where the name starts on its line (0-based), where known: the cursor goes there. */
  character?: number;
}

const PY_DEF = /^(async\s+def|def|class)\s+([A-Za-z_]\w*)/;
const PY_CELL = /^#\s*%%\s*(.*)$/;

/**
 * A Python file's outline without a language server: its top-level classes and functions (with a class's
 * methods one level down), and `# %%` cell markers as sections.
 */
export function pythonOutline(text: string): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  const lines = text.split('\n');
  let inClass = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    const cell = PY_CELL.exec(line);
    if (cell) {
      entries.push({ text: cell[1].trim() || 'Cell', level: 1, line: i + 1 });
      inClass = false;
      continue;
    }
    const top = PY_DEF.exec(line);
    if (top) {
      entries.push({ text: top[2], level: 1, line: i + 1 });
      inClass = top[1] === 'class';
      continue;
    }
    if (line.trim() && !/^\s/.test(line) && !line.startsWith('@') && !line.startsWith('#')) inClass = false;
    const method = inClass ? /^\s+(?:async\s+def|def)\s+([A-Za-z_]\w*)/.exec(line) : null;
    if (method && /^(\s+)/.exec(line)![1].length <= 4) entries.push({ text: method[1], level: 2, line: i + 1 });
  }
  return entries;
}

/** What a function's body holds (its locals, nested helpers) is no part of the outline, as in a code outline. */
const BODY_KINDS: ReadonlySet<DocumentSymbol['kind']> = new Set(['function', 'method', 'constructor']);

/** A Python file's outline from the language server's document symbols: every symbol but what function bodies hold. */
export function symbolOutline(symbols: readonly DocumentSymbol[], level = 1): OutlineEntry[] {
  return symbols.flatMap((symbol) => [
    {
      text: symbol.name,
      level,
      line: symbol.selectionRange.start.line + 1,
      character: symbol.selectionRange.start.character,
    },
    ...(BODY_KINDS.has(symbol.kind) ? [] : symbolOutline(symbol.children, level + 1)),
  ]);
}
