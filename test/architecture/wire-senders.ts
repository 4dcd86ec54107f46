// Who in main sends on a wire channel itself: a call `x.emit('<channel>', …)` naming one of the contract's event
// channels, or `x.emit(channel, …)` passing a channel through (an `emit` option wired to the hub). Services expose
// typed onDid… events instead, and main/services.ts announces them on the wire in one table (EventHub.announce).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { EVENT_CHANNELS } from '../../shared/contract';
import { sourceFiles } from './import-graph';

export interface WireSend {
  file: string;
  line: number;
  channel: string;
}

const WIRE = new Set<string>(EVENT_CHANNELS);

export function wireSendsIn(root: string, file: string): WireSend[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: WireSend[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'emit' &&
      node.arguments.length >= 1
    ) {
      let first = node.arguments[0];
      while (ts.isAsExpression(first) || ts.isParenthesizedExpression(first)) first = first.expression;
      const channel = ts.isStringLiteralLike(first) ? first.text : ts.isIdentifier(first) ? first.text : null;
      if (channel !== null && (WIRE.has(channel) || (ts.isIdentifier(first) && /channel/i.test(channel))))
        found.push({
          file: relative(root, file),
          line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
          channel,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function wireSendsInMain(root: string): WireSend[] {
  return sourceFiles(join(root, 'main')).flatMap((file) => wireSendsIn(root, file));
}
