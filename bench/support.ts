import { pathToFileURL } from 'node:url';

/** Shared helpers for benchmarks: each reports a ratio against a baseline measured in the same run. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function sample(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * Times two sides that each return their own duration: `warmups` untimed rounds of both, then `samples` rounds
 * taking turns, so a burst of load on a shared machine hits both alike.
 */
export async function interleaved(
  kilnOnce: () => Promise<number>,
  baselineOnce: () => Promise<number>,
  samples: number,
  warmups = 5,
): Promise<{ kiln: number[]; baseline: number[] }> {
  for (let i = 0; i < warmups; i++) {
    await kilnOnce();
    await baselineOnce();
  }
  const kiln: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < samples; i++) {
    kiln.push(await kilnOnce());
    baseline.push(await baselineOnce());
  }
  return { kiln, baseline };
}

export interface BenchResult {
  name: string;
  kiln: number;
  baseline: number;
  unit: string;
}

/**
 * What a figure must stay within to pass: a ratio to its baseline (`ratio`), an absolute value (`max`,
 * `below` when equal fails), or no more than its baseline plus `overBaseline` (for figures that can be 0). A ratio
 * with `orOverBaseline` also passes within that much of its baseline (for small figures where a fixed cost dominates).
 */
export type Target =
  { ratio: number; orOverBaseline?: number } | { max: number; below?: boolean } | { overBaseline: number };

/** One line of the summary and of bench/results.json. */
export interface Figure {
  /** The benchmark that measured it (`npm run bench -- <bench>`). */
  bench: string;
  name: string;
  kiln: number;
  baseline: number | null;
  unit: string;
  ratio: number | null;
  target: Target | null;
  /** Null when the figure has no target (printed for information). */
  meets: boolean | null;
}

const figures: Figure[] = [];
let currentBench = '';

/** Figures reported from now on belong to `bench` (run.ts calls it before each benchmark). */
export function beginBench(bench: string): void {
  currentBench = bench;
}

/** Every figure reported in this process, in order. */
export function reportedFigures(): readonly Figure[] {
  return figures;
}

export function targetText(target: Target | null, unit: string): string {
  if (!target) return '';
  const inUnit = (n: number) => (unit ? `${n} ${unit}` : String(n));
  if ('ratio' in target)
    return target.orOverBaseline === undefined
      ? `≤ ${target.ratio}x`
      : `≤ ${target.ratio}x or ≤ baseline + ${inUnit(target.orOverBaseline)}`;
  if ('max' in target) return `${target.below ? '<' : '≤'} ${inUnit(target.max)}`;
  return `≤ baseline + ${inUnit(target.overBaseline)}`;
}

/**
 * The quantity a figure's target judges, for the summary: the value itself against a `max`, what it adds to its
 * baseline against an `overBaseline`, else its ratio (with what it adds, when the target also allows that).
 */
export function judgedFigure(figure: Figure): { value: number; text: string } {
  const { target, ratio, kiln, baseline, unit } = figure;
  const added = baseline === null ? null : kiln - baseline;
  const addedText = added === null ? '' : `${added >= 0 ? '+' : ''}${added.toFixed(2)} ${unit}`;
  if (target && 'overBaseline' in target && added !== null) return { value: added, text: addedText };
  if (ratio === null || (target && 'max' in target)) return { value: kiln, text: `${kiln.toFixed(2)} ${unit}` };
  const also = target && 'ratio' in target && target.orOverBaseline !== undefined ? `, ${addedText}` : '';
  return { value: ratio, text: `${ratio.toFixed(2)}x${also}` };
}

function meets(target: Target, kiln: number, baseline: number | null, ratio: number | null): boolean {
  if ('ratio' in target)
    return (
      (ratio !== null && ratio <= target.ratio) ||
      (target.orOverBaseline !== undefined && baseline !== null && kiln <= baseline + target.orOverBaseline)
    );
  if ('max' in target) return target.below ? kiln < target.max : kiln <= target.max;
  return baseline !== null && kiln <= baseline + target.overBaseline;
}

/** Prints a figure against its baseline (and its target, when it has one) and records it for the summary. */
export function report(result: BenchResult, target: Target | null = null): Figure {
  const ratio = result.kiln / result.baseline;
  const figure = record({ ...result, ratio: Number.isFinite(ratio) ? ratio : null }, target);
  console.log(
    `${result.name}: kiln ${result.kiln.toFixed(2)} ${result.unit}, baseline ${result.baseline.toFixed(2)} ${result.unit}, ratio ${figure.ratio === null ? '-' : `${ratio.toFixed(2)}x`}${verdictText(figure)}`,
  );
  return figure;
}

/** A figure with no baseline (memory, a count), printed against its target and recorded. */
export function reportValue(name: string, value: number, unit: string, target: Target | null): Figure {
  const figure = record({ name, kiln: value, baseline: null, unit, ratio: null }, target);
  console.log(`${name}: ${value.toFixed(2)} ${unit}${verdictText(figure)}`);
  return figure;
}

function record(figure: Omit<Figure, 'bench' | 'target' | 'meets'>, target: Target | null): Figure {
  const full: Figure = {
    bench: currentBench,
    ...figure,
    target,
    meets: target ? meets(target, figure.kiln, figure.baseline, figure.ratio) : null,
  };
  figures.push(full);
  return full;
}

function verdictText(figure: Figure): string {
  if (!figure.target) return '';
  return ` (target ${targetText(figure.target, figure.unit)}): ${figure.meets ? 'meets target' : 'MISSES target'}`;
}

/**
 * Runs a bench when its file is run alone (`node --import tsx bench/<name>.ts`) and exits with its outcome;
 * does nothing when bench/run.ts imports the file.
 */
export function runWhenMain(moduleUrl: string, bench: () => Promise<unknown>): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  bench().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
