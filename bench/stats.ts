/** Median of timings (ms) — robust to the noise of a shared machine. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Times `fn` `reps` times after one warm-up and returns the median in ms. */
export async function timeMedian(reps: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

export function report(name: string, figure: string): void {
  console.log(`${name.padEnd(48)} ${figure}`);
}
