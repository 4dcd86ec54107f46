// Where main swallows a failure without a word: a `.catch(() => undefined)`-style handler that returns a constant
// (undefined, null, false, '', [], {}) or does nothing, and a `catch {}` whose block holds no statement. Read with
// TypeScript's own parser. A swallow that is expected says so on its line or the line above with a comment starting
// `expected:`; every other failure is logged (`log.caught('why', fallback)`) or handled.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './import-graph';

export interface Swallow {
  /** Root-relative path and 1-based line. */
  file: string;
  line: number;
  kind: 'catch-handler' | 'empty-catch';
  text: string;
}

function isConstant(node: ts.Node): boolean {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return isConstant(node.expression);
  if (ts.isIdentifier(node)) return node.text === 'undefined';
  if (node.kind === ts.SyntaxKind.NullKeyword || node.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text === '';
  if (ts.isArrayLiteralExpression(node)) return node.elements.length === 0;
  if (ts.isObjectLiteralExpression(node)) return node.properties.length === 0;
  if (ts.isVoidExpression(node)) return ts.isNumericLiteral(node.expression);
  return false;
}

/** `() => undefined`, `() => []`, `() => {}`, `function () {}`: a handler that drops the error and says nothing. */
function isSilentHandler(node: ts.Node): boolean {
  if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return false;
  if (ts.isBlock(node.body)) return node.body.statements.length === 0;
  return isConstant(node.body);
}

/** The line's own text and the line above carry an `expected:` comment. */
function saysExpected(lines: string[], line: number): boolean {
  return [lines[line - 1], lines[line - 2]].some(
    (text) => text !== undefined && /\/\/\s*expected:|\/\*\s*expected:/.test(text),
  );
}

export function swallowsIn(root: string, file: string): Swallow[] {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Swallow[] = [];
  const add = (node: ts.Node, kind: Swallow['kind']) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    // An empty catch block's comment sits inside the block: `catch { // expected: … }`.
    const inside = kind === 'empty-catch' ? text.slice(node.getStart(source), node.getEnd()) : '';
    if (saysExpected(lines, line) || /expected:/.test(inside)) return;
    found.push({ file: relative(root, file), line, kind, text: lines[line - 1].trim() });
  };
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'catch' &&
      node.arguments.length === 1 &&
      isSilentHandler(node.arguments[0])
    )
      add(node.arguments[0], 'catch-handler');
    if (ts.isCatchClause(node) && node.block.statements.length === 0) add(node, 'empty-catch');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every unexplained swallow in `root/main`. */
export function swallowsInMain(root: string): Swallow[] {
  return sourceFiles(join(root, 'main')).flatMap((file) => swallowsIn(root, file));
}
