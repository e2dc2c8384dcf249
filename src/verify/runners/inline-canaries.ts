import { randomInt } from "node:crypto";
import type { CanaryCheck } from "./types.ts";

/**
 * Must-fail canaries written *into* a hidden test module (appended to the copy laid over the
 * workspace), so that they share everything a targeted forgery could key on (docs/security.md §7,
 * classes 2 and 3): the module and its location, the names it imported from the code under test (each
 * canary mentions one), the assertion APIs it uses (one canary per API: an assert statement,
 * `pytest.raises`, each `self.assert*` method; each method of node's `assert`, each `expect` matcher),
 * the way it declares tests, and names drawn from its own tests' words. A hook that turns failures of
 * tests mentioning the package into passes, or a no-op'd assertion API the hidden tests use, then turns
 * one of these green too, which the verdict reads as forgery.
 *
 * Each canary fails on a value it computes without calling the code under test (`typeof`, the object
 * itself compared with a random string), so an honest run of any correct or incorrect fix fails it.
 * Only names bound at the module's top level are used, so a canary never fails for a reason of its
 * own making where its message is checked.
 */
export interface InlineCanaries {
  /** The module's text with the canaries appended. */
  content: string;
  checks: CanaryCheck[];
}

/** Canaries planted into one module at most. */
export const MAX_PER_FILE = 6;

// The Python and JavaScript planters are python-inline-canaries.ts and js-inline-canaries.ts; what they share follows.

/** The distinct words of a module's own test names, to name canaries like its tests. */
export function wordsOf(names: readonly string[], separator: string): string[] {
  const words = new Set<string>();
  for (const name of names) {
    for (const w of name.split(separator === "_" ? /_+/ : /\s+/)) {
      const word = w.replace(/[^A-Za-z0-9]/g, "").toLowerCase();
      if (word.length >= 2 && !/^\d+$/.test(word)) words.add(word);
    }
  }
  return words.size >= 3 ? [...words] : [...words, "handles", "value", "input", "result", "case"];
}

export function uniqueName(
  words: readonly string[],
  taken: Set<string>,
  make: (w: string[]) => string,
): string {
  for (let attempt = 0; ; attempt++) {
    const length = 2 + randomInt(2) + (attempt > 20 ? 2 : 0);
    const picked = Array.from({ length }, () => words[randomInt(words.length)]!);
    const name = make(picked);
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
