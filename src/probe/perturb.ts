import { charClass, isBeyondAscii, sameClassReplacement } from "./char-classes.ts";
import type { LiteralValue, Perturbation, TestLiteral } from "./types.ts";

/**
 * The perturbations of one literal input, neighbours first (pure). Each is the literal's replacement
 * text in the test's language; the caller decides how many of them run.
 *
 * - numbers: ±1 and ±2 (a float steps in its last written digit: 0.7 → 0.6, 0.8); boundaries 0 and −n;
 * - strings: one character substituted by another of its class that the module never mentions (an
 *   accented letter first, then an ASCII letter), the last run of digits ±1 (as a number: dates and
 *   versions stay well-formed), a letter inserted and one deleted, a line dropped or repeated in a
 *   multi-line string; boundary: the empty string;
 * - collections: the last element dropped, an element repeated, the first two swapped; boundary: empty;
 * - booleans: flipped (a boundary: a flag changes the mode, not the input).
 */
export interface LiteralSyntax {
  integer(value: bigint, bigint: boolean): string;
  float(value: number, decimals: number, exponent: number | null): string;
  string(value: string, bytes: boolean): string;
  boolean(value: boolean): string;
  collection(open: string, close: string, elements: readonly string[]): string;
}

export interface PerturbContext {
  /** The module's text (collection elements are read from it). */
  text: string;
  syntax: LiteralSyntax;
  /** Characters the module mentions anywhere: substitutes are taken from outside it when possible. */
  avoid: ReadonlySet<string>;
  /** Chooses positions and substitutes; derived from the test id and literal, so probes are stable. */
  seed: number;
}

type Draft = { op: string; kind: Perturbation["kind"]; text: string };

export function perturbationsOf(literal: TestLiteral, context: PerturbContext): Perturbation[] {
  const original = context.text.slice(literal.span.start, literal.span.end);
  const drafts = draftsOf(literal.value, context);
  const seen = new Set<string>([original]);
  const out: Perturbation[] = [];
  for (const d of drafts) {
    if (seen.has(d.text)) continue;
    seen.add(d.text);
    out.push({
      id: `L${literal.index}:${d.op}`,
      literal: literal.index,
      literalKind: literal.value.kind,
      op: d.op,
      kind: d.kind,
      text: d.text,
    });
  }
  return out;
}

function draftsOf(value: LiteralValue, context: PerturbContext): Draft[] {
  switch (value.kind) {
    case "number":
      return value.integer !== null
        ? integerDrafts(value.integer, value.bigint, context)
        : floatDrafts(value, context);
    case "string":
      return stringDrafts(value.value, value.bytes, context);
    case "boolean":
      return [{ op: "flip", kind: "boundary", text: context.syntax.boolean(!value.value) }];
    case "collection":
      return collectionDrafts(value, context);
  }
}

function integerDrafts(n: bigint, bigint: boolean, { syntax }: PerturbContext): Draft[] {
  const at = (v: bigint) => syntax.integer(v, bigint);
  const drafts: Draft[] = [
    { op: "-1", kind: "neighbour", text: at(n - 1n) },
    { op: "+1", kind: "neighbour", text: at(n + 1n) },
    { op: "-2", kind: "neighbour", text: at(n - 2n) },
    { op: "+2", kind: "neighbour", text: at(n + 2n) },
  ];
  if (n > 2n || n < -2n) drafts.push({ op: "zero", kind: "boundary", text: at(0n) });
  if (n > 2n) drafts.push({ op: "negate", kind: "boundary", text: at(-n) });
  return drafts;
}

function floatDrafts(value: Extract<LiteralValue, { kind: "number" }>, { syntax }: PerturbContext): Draft[] {
  const { decimals, exponent } = value;
  const scale = 10 ** (exponent ?? 0);
  const step = 10 ** -decimals * scale;
  // Rounded to the written precision, so 0.7 − 0.1 is written 0.6, not 0.6000000000000001.
  const at = (v: number) => syntax.float(v, decimals, exponent);
  const drafts: Draft[] = [
    { op: "-step", kind: "neighbour", text: at(value.value - step) },
    { op: "+step", kind: "neighbour", text: at(value.value + step) },
    { op: "-2step", kind: "neighbour", text: at(value.value - 2 * step) },
    { op: "+2step", kind: "neighbour", text: at(value.value + 2 * step) },
  ];
  if (Math.abs(value.value) > 2 * step) drafts.push({ op: "zero", kind: "boundary", text: at(0) });
  if (value.value > 2 * step) drafts.push({ op: "negate", kind: "boundary", text: at(-value.value) });
  return drafts;
}

function stringDrafts(s: string, bytes: boolean, { syntax, avoid, seed }: PerturbContext): Draft[] {
  const chars = [...s];
  const render = (cs: readonly string[]) => syntax.string(cs.join(""), bytes);
  const classOf = (c: string) => (bytes && c.charCodeAt(0) >= 0x80 ? "other" : charClass(c));
  const positions = (keep: (i: number) => boolean) => chars.map((_, i) => i).filter(keep);
  const beyond = positions((i) => isBeyondAscii(classOf(chars[i]!)));
  const letters = positions((i) => {
    const cls = classOf(chars[i]!);
    return cls === "lower" || cls === "upper";
  });
  const pick = (ps: readonly number[], salt: number) => ps[(seed + salt) % ps.length]!;
  const drafts: Draft[] = [];

  const substitute = (i: number) => {
    const replacement = sameClassReplacement(chars[i]!, avoid, seed);
    if (replacement === null) return;
    const cs = [...chars];
    cs[i] = replacement;
    drafts.push({ op: `sub@${i}`, kind: "neighbour", text: render(cs) });
  };
  if (beyond.length) substitute(pick(beyond, 0));
  if (letters.length) substitute(pick(letters, 1));

  // Digits are numbers: the last run of them steps by one, as a number does ("2024-01-15" → "-16").
  const runs = [...s.matchAll(/\d+/g)];
  const last = runs.at(-1);
  if (last && !bytes) {
    const digits = last[0];
    const at = last.index!;
    const step = (delta: bigint) => {
      const n = BigInt(digits) + delta;
      if (n < 0n) return;
      const written = n.toString().padStart(digits.length, "0");
      const op = `${delta > 0n ? "+" : "-"}1@${[...s.slice(0, at)].length}`;
      drafts.push({
        op,
        kind: "neighbour",
        text: syntax.string(s.slice(0, at) + written + s.slice(at + digits.length), bytes),
      });
    };
    step(1n);
    step(-1n);
  }

  const lettered = beyond.length ? beyond : letters;
  if (lettered.length) {
    const i = pick(lettered, 2);
    const added = sameClassReplacement(chars[i]!, avoid, seed + 1);
    if (added !== null) {
      const cs = [...chars];
      cs.splice(i + 1, 0, added);
      drafts.push({ op: `ins@${i + 1}`, kind: "neighbour", text: render(cs) });
    }
    const j = pick(lettered, 3);
    drafts.push({ op: `del@${j}`, kind: "neighbour", text: render(chars.filter((_, k) => k !== j)) });
  } else if (chars.length && runs.length === 0) {
    const end = chars.length - 1;
    drafts.push({ op: `ins@${chars.length}`, kind: "neighbour", text: render([...chars, chars[end]!]) });
    drafts.push({ op: `del@${end}`, kind: "neighbour", text: render(chars.slice(0, end)) });
  }

  const lines = s.split("\n");
  const filled = lines.map((_, i) => i).filter((i) => lines[i]!.trim() !== "");
  if (filled.length >= 2) {
    const k = pick(filled, 4);
    drafts.push({
      op: `dropline@${k}`,
      kind: "neighbour",
      text: syntax.string(lines.filter((_, i) => i !== k).join("\n"), bytes),
    });
    drafts.push({
      op: `dupline@${k}`,
      kind: "neighbour",
      text: syntax.string([...lines.slice(0, k + 1), lines[k]!, ...lines.slice(k + 1)].join("\n"), bytes),
    });
  }
  if (chars.length) drafts.push({ op: "empty", kind: "boundary", text: syntax.string("", bytes) });
  return drafts;
}

function collectionDrafts(
  value: Extract<LiteralValue, { kind: "collection" }>,
  { text, syntax }: PerturbContext,
): Draft[] {
  const elements = value.elements.map((e) => text.slice(e.start, e.end));
  const render = (es: readonly string[]) => syntax.collection(value.open, value.close, es);
  const n = elements.length;
  const drafts: Draft[] = [];
  if (n === 0) return drafts;
  if (n >= 2) drafts.push({ op: `drop@${n - 1}`, kind: "neighbour", text: render(elements.slice(0, -1)) });
  drafts.push({ op: `dup@${n - 1}`, kind: "neighbour", text: render([...elements, elements[n - 1]!]) });
  if (n >= 2 && elements[0] !== elements[1])
    drafts.push({
      op: "swap@0",
      kind: "neighbour",
      text: render([elements[1]!, elements[0]!, ...elements.slice(2)]),
    });
  drafts.push({ op: "empty", kind: "boundary", text: render([]) });
  return drafts;
}

/** A 32-bit FNV-1a hash: the seed of a literal's perturbations. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
