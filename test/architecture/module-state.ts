// Module-level mutable state in the renderer, read with TypeScript's parser: a top-level `let`/`var`, or a
// top-level `const` holding a new Map, Set, WeakMap, WeakSet, Emitter or store. Such state is shared by every
// bridge (window, workspace) in the page; a store made with `perBridge` or a field of the session that owns it is
// not. What is one per process by nature says so on its line (or the line above) with PROCESS_WIDE.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The marker a process-wide module-level variable carries, followed by why: `// process-wide: Monaco's …`. */
export const PROCESS_WIDE = 'process-wide:';

const SOURCE = /\.tsx?$/;
const NOT_PRODUCT = /(\.test\.tsx?|\.d\.ts)$/;
/** Constructors whose instance is state that changes (a collection, an event, a store). */
const MUTABLE = /^(Map|Set|WeakMap|WeakSet|Emitter|\w+Store)$/;
/** A collection typed read-only at its declaration is a constant table: the compiler refuses to change it. */
const READ_ONLY_TYPE = /^(ReadonlyMap|ReadonlySet)\b/;

export interface ModuleState {
  /** Relative to the root, with its 1-based line. */
  file: string;
  line: number;
  text: string;
}

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (SOURCE.test(name) && !NOT_PRODUCT.test(name)) into.push(path);
  }
  return into;
}

function isMutable(declaration: ts.VariableDeclaration, kind: ts.NodeFlags): boolean {
  if (!(kind & ts.NodeFlags.Const)) return true;
  const init = declaration.initializer;
  if (!init || !ts.isNewExpression(init) || !ts.isIdentifier(init.expression)) return false;
  if (declaration.type && READ_ONLY_TYPE.test(declaration.type.getText())) return false;
  return MUTABLE.test(init.expression.text);
}

/** The module-level mutables of one file's text not marked process-wide. */
export function unmarkedModuleState(fileName: string, text: string): Omit<ModuleState, 'file'>[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const found: Omit<ModuleState, 'file'>[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  /** The last line of the marked variables just above: a block of them with no blank line between shares one marker. */
  let markedUntil = -2;
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    if (!list.declarations.some((d) => isMutable(d, list.flags))) continue;
    const line = lineOf(statement.getStart());
    // The marker on the statement's line or in the comment right above it.
    const comments = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
    const above = comments.map((c) => text.slice(c.pos, c.end)).join('\n');
    const firstLine = comments.length ? lineOf(comments[0]!.pos) : line;
    const marked = (lines[line] ?? '').includes(PROCESS_WIDE) || above.includes(PROCESS_WIDE);
    if (marked || firstLine === markedUntil + 1) {
      markedUntil = lineOf(statement.getEnd());
      continue;
    }
    found.push({ line: line + 1, text: (lines[line] ?? '').trim() });
  }
  return found;
}

/** Every unmarked module-level mutable in the product files under `root/dir`. */
export function moduleState(root: string, dir = 'renderer/src'): ModuleState[] {
  const top = join(root, dir);
  if (!existsSync(top)) return [];
  return sourceFiles(top).flatMap((path) =>
    unmarkedModuleState(path, readFileSync(path, 'utf8')).map((s) => ({ file: relative(root, path), ...s })),
  );
}
