import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { judgedFigure, runWhenMain, targetText, type Figure } from './support';

/**
 * `node --import tsx bench/report.ts [results.json]`: rewrites the latest figures in bench/README.md (the table
 * between the two markers) from bench/results.json, which `npm run bench` writes. The README keeps only the
 * latest figures; earlier ones live in git's history of that file.
 */
export const TABLE_START = '<!-- figures:start (bench/report.ts writes this table) -->';
export const TABLE_END = '<!-- figures:end -->';

/** What bench/run.ts writes to bench/results.json (the part the report reads). */
export interface BenchResults {
  date: string;
  commit: string | null;
  machine: { cpus: number; model: string; memoryGb: number };
  benches: { name: string; loadBefore: number; loadAfter: number; error: string | null }[];
  figures: Figure[];
}

/** A Markdown table row; an empty cell is one space, as a hand-written table has it. */
function row(cells: string[]): string {
  return `|${cells.map((c) => (c ? ` ${c} ` : ' ')).join('|')}|`;
}

/** A cell's text made safe for a Markdown table row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function amount(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

/** The figures of one run as one Markdown table, with a line saying when, where and on which commit. */
export function figuresTable(results: BenchResults): string {
  const loads = results.benches.flatMap((b) => [b.loadBefore, b.loadAfter]);
  const load = loads.length ? `, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}` : '';
  const lines = [
    `From \`npm run bench\` on ${results.date.slice(0, 10)}, commit ${results.commit?.slice(0, 7) ?? 'unknown'}, ` +
      `${results.machine.cpus} CPUs${load}.`,
    '',
    '| | benchmark | figure | Kiln | baseline | judged | target |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const figure of results.figures) {
    const verdict = figure.meets === null ? '' : figure.meets ? 'met' : '**missed**';
    const judged = figure.target ? judgedFigure(figure).text : '';
    lines.push(
      row([
        verdict,
        `\`${figure.bench}\``,
        cell(figure.name),
        amount(figure.kiln, figure.unit),
        figure.baseline === null ? '' : amount(figure.baseline, figure.unit),
        judged,
        cell(targetText(figure.target, figure.unit)),
      ]),
    );
  }
  for (const bench of results.benches.filter((b) => b.error))
    lines.push(row(['**failed**', `\`${bench.name}\``, cell((bench.error ?? '').split('\n')[0]), '', '', '', '']));
  return lines.join('\n');
}

/** `readme` with the text between the markers replaced by `table`; throws when the markers are missing. */
export function withFiguresTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`bench/README.md has lost its markers: it needs "${TABLE_START}" and, after it, "${TABLE_END}"`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

async function main(): Promise<void> {
  const resultsFile = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, 'results.json'));
  const readmeFile = path.join(import.meta.dirname, 'README.md');
  let results: BenchResults;
  try {
    results = JSON.parse(await readFile(resultsFile, 'utf8')) as BenchResults;
  } catch (err) {
    throw new Error(`Cannot read ${resultsFile} (run \`npm run bench\` first): ${(err as Error).message}`, {
      cause: err,
    });
  }
  await writeFile(readmeFile, withFiguresTable(await readFile(readmeFile, 'utf8'), figuresTable(results)));
  console.log(`${path.relative(process.cwd(), readmeFile)}: ${results.figures.length} figures from ${resultsFile}`);
}

runWhenMain(import.meta.url, main);
