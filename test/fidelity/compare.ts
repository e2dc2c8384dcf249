import type { TestStatus } from "../../src/contracts/verdict.ts";

/**
 * Per-test agreement of two runs of one suite (pure). A test reported by one run only counts as
 * `missing` in the other, with one exception: a parametrized test whose parameter id embeds a value of
 * the run itself (marshmallow's `test_x[07:16:33 2026-12-05]`, from `datetime.now()`) has a different id
 * in every run. Such ids, reported by one run only, are paired across the runs by the test they belong
 * to (the id without its `[…]`) and their status; what cannot be paired stays a difference.
 */
export interface Agreement {
  agreeing: number;
  differences: { id: string; guarded: TestStatus; bare: TestStatus }[];
}

const PARAMETRIZED = /^(.*)\[[^\]]*\]$/;

export function compareObserved(
  guarded: Readonly<Record<string, TestStatus>>,
  bare: Readonly<Record<string, TestStatus>>,
): Agreement {
  const differences: Agreement["differences"] = [];
  let agreeing = 0;
  const onlyGuarded: string[] = [];
  const onlyBare: string[] = [];
  for (const id of Object.keys(guarded)) {
    if (!(id in bare)) onlyGuarded.push(id);
    else if (guarded[id] === bare[id]) agreeing++;
    else differences.push({ id, guarded: guarded[id]!, bare: bare[id]! });
  }
  for (const id of Object.keys(bare)) if (!(id in guarded)) onlyBare.push(id);
  // Pair the ids reported by one run only, by test and status.
  const key = (id: string, status: TestStatus) => {
    const test = PARAMETRIZED.exec(id)?.[1];
    return test === undefined ? undefined : `${test}\0${status}`;
  };
  const unpaired = new Map<string, string[]>();
  for (const id of onlyBare) {
    const k = key(id, bare[id]!);
    if (k === undefined) continue;
    unpaired.set(k, [...(unpaired.get(k) ?? []), id]);
  }
  const pairedBare = new Set<string>();
  for (const id of onlyGuarded) {
    const k = key(id, guarded[id]!);
    const partner = k === undefined ? undefined : unpaired.get(k)?.shift();
    if (partner !== undefined) {
      pairedBare.add(partner);
      agreeing++;
    } else differences.push({ id, guarded: guarded[id]!, bare: "missing" });
  }
  for (const id of onlyBare)
    if (!pairedBare.has(id)) differences.push({ id, guarded: "missing", bare: bare[id]! });
  differences.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { agreeing, differences };
}
