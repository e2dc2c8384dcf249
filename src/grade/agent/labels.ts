/**
 * Anonymous candidate labels and the order they are shown in.
 *
 * The model sees candidates only as A, B, C… (then AA, AB…), so neither a candidate's id nor its
 * position in the input can carry a name or a prior. Each pass shows them in a different order to
 * cancel position bias: pass p uses a seeded shuffle of the ids rotated by p, so with K ≤ n passes
 * every candidate sits in K different positions (a Latin-square design); passes beyond n reshuffle.
 */

/** The label of the i-th shown candidate: A…Z, AA, AB, … */
export function labelOf(index: number): string {
  let n = index;
  let label = "";
  do {
    label = String.fromCharCode(65 + (n % 26)) + label;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return label;
}

/** Label → candidate id for one pass, and back. */
export interface LabelMap {
  labels: string[];
  idOf: Map<string, string>;
  labelOf: Map<string, string>;
}

export function labelMap(orderedIds: string[]): LabelMap {
  const labels = orderedIds.map((_, i) => labelOf(i));
  return {
    labels,
    idOf: new Map(labels.map((l, i) => [l, orderedIds[i]!])),
    labelOf: new Map(orderedIds.map((id, i) => [id, labels[i]!])),
  };
}

/** The order candidates are shown in on pass `pass` (0-based) of a group. Deterministic in (ids, seed, pass). */
export function passOrder(ids: string[], pass: number, seed: string): string[] {
  const sorted = [...ids].sort();
  const round = Math.floor(pass / Math.max(sorted.length, 1));
  const base = shuffle(sorted, seededRandom(`${seed}\u0000${round}`));
  const shift = pass % Math.max(base.length, 1);
  return [...base.slice(shift), ...base.slice(0, shift)];
}

/** Fisher–Yates with the given uniform [0, 1) source. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** mulberry32 seeded from an FNV-1a hash of `seed`: small, fast and reproducible across platforms. */
export function seededRandom(seed: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let state = h >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
