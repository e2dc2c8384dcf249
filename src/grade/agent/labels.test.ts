import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { labelMap, labelOf, passOrder } from "./labels.ts";

describe("labelOf", () => {
  it("counts A…Z, then AA, AB…", () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(labelOf)).toEqual([
      "A",
      "B",
      "Z",
      "AA",
      "AB",
      "AZ",
      "BA",
      "ZZ",
      "AAA",
    ]);
  });
});

describe("labelMap", () => {
  it("maps labels to ids and back", () => {
    const map = labelMap(["r7", "r2"]);
    expect(map.labels).toEqual(["A", "B"]);
    expect(map.idOf.get("B")).toBe("r2");
    expect(map.labelOf.get("r7")).toBe("A");
  });
});

describe("passOrder", () => {
  it("is a permutation, deterministic, and independent of the input order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 9 }),
        fc.nat(20),
        (ids, pass) => {
          const order = passOrder(ids, pass, "g-1");
          expect([...order].sort()).toEqual([...ids].sort());
          expect(passOrder([...ids].reverse(), pass, "g-1")).toEqual(order);
        },
      ),
    );
  });

  it("puts every candidate in a different position on each of the first n passes", () => {
    const ids = ["a", "b", "c", "d"];
    const orders = [0, 1, 2, 3].map((p) => passOrder(ids, p, "seed"));
    for (const id of ids) expect(new Set(orders.map((o) => o.indexOf(id))).size).toBe(4);
  });

  it("varies with the seed", () => {
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    expect(passOrder(ids, 0, "one")).not.toEqual(passOrder(ids, 0, "two"));
  });
});
