// The import graph of Kiln's product code, read with TypeScript's own scanner: every relative `import`,
// `export … from` and `import()` (type-only ones too: a cycle of types is still a cycle for a reader),
// resolved as the bundler does (`.ts`, `.tsx`, a folder's `index.ts(x)`). Packages are leaves and left out.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The layers whose files ship in the app; tests and fixtures are not product code. */
export const PRODUCT_ROOTS = ['shared', 'main', 'preload', 'renderer'];

const SOURCE = /\.tsx?$/;
const NOT_PRODUCT = /(\.test\.tsx?|\.d\.ts)$/;

/** Every product source file below `dir` (tests, declarations, node_modules and build output left out). */
export function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'out') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (SOURCE.test(name) && !NOT_PRODUCT.test(name)) into.push(path);
  }
  return into;
}

function resolveRelative(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** File → the product files it imports, as paths relative to `root`. */
export function importGraph(root: string, roots = PRODUCT_ROOTS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const top of roots) {
    const dir = join(root, top);
    if (!existsSync(dir)) continue;
    for (const file of sourceFiles(dir)) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = new Set<string>();
      for (const { fileName } of info.importedFiles) {
        if (!fileName.startsWith('.')) continue;
        const target = resolveRelative(file, fileName);
        if (target && !NOT_PRODUCT.test(target)) targets.add(relative(root, target));
      }
      graph.set(relative(root, file), [...targets].sort());
    }
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself): each is a cycle. */
export function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep chain of imports cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** One shortest way round a component, from its first file back to it, so a failure names the imports to undo. */
export function loopThrough(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}
