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

export interface BenchResult {
  name: string;
  kiln: number;
  baseline: number;
  unit: string;
}

export function report(result: BenchResult): void {
  const ratio = result.kiln / result.baseline;
  console.log(
    `${result.name}: kiln ${result.kiln.toFixed(2)} ${result.unit}, baseline ${result.baseline.toFixed(2)} ${result.unit}, ratio ${ratio.toFixed(2)}x`,
  );
}
