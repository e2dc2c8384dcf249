import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charClass } from "./char-classes.ts";
import { decodeJsString, jsSyntax } from "./js/literals.ts";
import { type LiteralSyntax, perturbationsOf, seedOf } from "./perturb.ts";
import { decodePythonString, pythonSyntax } from "./python/literals.ts";
import { selectPerturbations } from "./select.ts";
import type { LiteralValue, TestLiteral } from "./types.ts";

const literal = (value: LiteralValue, text = "", index = 0): TestLiteral => ({
  index,
  span: { start: 0, end: text.length },
  line: 1,
  value,
});
const integer = (n: bigint): LiteralValue => ({
  kind: "number",
  integer: n,
  value: Number(n),
  decimals: 0,
  exponent: null,
  bigint: false,
});
const string = (value: string): LiteralValue => ({ kind: "string", value, bytes: false });

function perturb(value: LiteralValue, syntax: LiteralSyntax, text = "x", avoid = "", seed = 7) {
  return perturbationsOf(literal(value, text), { text, syntax, avoid: new Set(avoid), seed });
}

describe("number perturbations", () => {
  it("steps an integer to its neighbours, then to the boundaries", () => {
    const ps = perturb(integer(99n), pythonSyntax, "99");
    expect(ps.map((p) => [p.op, p.kind, p.text])).toEqual([
      ["-1", "neighbour", "98"],
      ["+1", "neighbour", "100"],
      ["-2", "neighbour", "97"],
      ["+2", "neighbour", "101"],
      ["zero", "boundary", "0"],
      ["negate", "boundary", "(-99)"],
    ]);
  });

  it("steps a float in its last written digit and keeps it a float", () => {
    const value = {
      kind: "number",
      integer: null,
      value: 0.7,
      decimals: 1,
      exponent: null,
      bigint: false,
    } as const;
    expect(perturb(value, pythonSyntax, "0.7").map((p) => p.text)).toEqual([
      "0.6",
      "0.8",
      "0.5",
      "0.9",
      "0.0",
      "(-0.7)",
    ]);
    const whole = {
      kind: "number",
      integer: null,
      value: 2,
      decimals: 0,
      exponent: null,
      bigint: false,
    } as const;
    expect(perturb(whole, pythonSyntax, "2.").map((p) => p.text)).toContain("3.0");
    const scientific = {
      kind: "number",
      integer: null,
      value: 1500,
      decimals: 1,
      exponent: 3,
      bigint: false,
    } as const;
    expect(
      perturb(scientific, jsSyntax, "1.5e3")
        .map((p) => p.text)
        .slice(0, 2),
    ).toEqual(["1.4e3", "1.6e3"]);
  });

  it("keeps a BigInt a BigInt", () => {
    const big = { ...integer(10n), bigint: true } as LiteralValue;
    expect(perturb(big, jsSyntax, "10n").map((p) => p.text)).toContain("9n");
  });
});

describe("string perturbations", () => {
  it("substitutes an accented letter by another one the module never mentions", () => {
    const ps = perturb(string("Crème"), jsSyntax, '"Crème"', "Crèmeé");
    const sub = ps.find((p) => p.op.startsWith("sub@2"))!;
    const replaced = [...decodeJsString(sub.text)!][2]!;
    expect(charClass(replaced)).toBe("latin-lower");
    expect("èé").not.toContain(replaced);
  });

  it("steps the last run of digits as a number, keeping its width", () => {
    const texts = perturb(string("2024-01-09"), pythonSyntax).map((p) => decodePythonString(p.text)?.value);
    expect(texts).toContain("2024-01-10");
    expect(texts).toContain("2024-01-08");
  });

  it("drops and repeats lines of a multi-line string", () => {
    const ops = perturb(string("a = 1\nb = 2\n"), pythonSyntax).map((p) => p.op);
    expect(ops.some((op) => op.startsWith("dropline@"))).toBe(true);
    expect(ops.some((op) => op.startsWith("dupline@"))).toBe(true);
  });

  it("is deterministic, never the original, and written back as valid literals of the same value class", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), fc.nat(), (s, seed) => {
        for (const [syntax, decode] of [
          [pythonSyntax, (t: string) => decodePythonString(t)?.value],
          [jsSyntax, decodeJsString],
        ] as const) {
          const original = syntax.string(s, false);
          const first = perturb(string(s), syntax, original, "", seed);
          expect(perturb(string(s), syntax, original, "", seed)).toEqual(first);
          for (const p of first) {
            expect(p.text).not.toBe(original);
            expect(decode(p.text)).not.toBeNull();
            const after = [...decode(p.text)!];
            const before = [...s];
            const at = Number(p.op.split("@")[1]);
            if (p.op.startsWith("sub@")) {
              expect(after.length).toBe(before.length);
              expect(charClass(after[at]!)).toBe(charClass(before[at]!));
            }
            if (p.op.startsWith("del@")) expect(after.length).toBe(before.length - 1);
            if (p.op.startsWith("ins@")) expect(after.length).toBe(before.length + 1);
          }
        }
      }),
    );
  });
});

describe("collection perturbations", () => {
  it("drops the last element, repeats one, swaps the first two, and empties", () => {
    const text = "[1, 22, 3]";
    const value: LiteralValue = {
      kind: "collection",
      elements: [
        { start: 1, end: 2 },
        { start: 4, end: 6 },
        { start: 8, end: 9 },
      ],
      open: "[",
      close: "]",
    };
    expect(perturb(value, pythonSyntax, text).map((p) => p.text)).toEqual([
      "[1, 22]",
      "[1, 22, 3, 3]",
      "[22, 1, 3]",
      "[]",
    ]);
    const one: LiteralValue = { kind: "collection", elements: [{ start: 1, end: 2 }], open: "(", close: ")" };
    expect(perturb(one, pythonSyntax, "(1,)").map((p) => p.text)).toEqual(["(1, 1)", "()"]);
  });
});

describe("selection", () => {
  it("takes neighbours before boundaries, round-robin over literals, within the budget", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -1000n, max: 1000n }), { maxLength: 6 }),
        fc.nat(20),
        (ns, max) => {
          const perLiteral = ns.map((n, i) =>
            perturbationsOf(literal(integer(n), String(n), i), {
              text: String(n),
              syntax: jsSyntax,
              avoid: new Set(),
              seed: seedOf(String(i)),
            }),
          );
          const chosen = selectPerturbations(perLiteral, max);
          const total = perLiteral.flat().length;
          expect(chosen.length).toBe(Math.min(max, total));
          const firstBoundary = chosen.findIndex((p) => p.kind === "boundary");
          if (firstBoundary >= 0)
            expect(chosen.slice(firstBoundary).every((p) => p.kind === "boundary")).toBe(true);
          const neighbours = perLiteral.flat().filter((p) => p.kind === "neighbour").length;
          expect(chosen.filter((p) => p.kind === "neighbour").length).toBe(Math.min(max, neighbours));
          // Round-robin: no literal gets a second neighbour before every literal has its first.
          const firstRound = Math.min(ns.length, max);
          expect(new Set(chosen.slice(0, firstRound).map((p) => p.literal)).size).toBe(firstRound);
        },
      ),
    );
  });
});
