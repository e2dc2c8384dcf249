/**
 * Character classes for string perturbations: a character is swapped for another of its class (a
 * letter for a letter of the same case and script, an accented Latin letter for another accented one,
 * a CJK character for another of its block), preferably one that the test module never mentions, so a
 * probe lands one step away from what the tests cover. The pools hold characters every honest
 * implementation treats alike: the accented Latin letters are Latin-1's, which decompose (letter +
 * combining mark), so a transliteration table and Unicode normalisation agree on them; ø, æ, ß, ł and
 * the like, where honest fixes legitimately differ, are left out.
 */

export type CharClass =
  | "lower"
  | "upper"
  | "digit"
  | "space"
  | "punct"
  | "latin-lower"
  | "latin-upper"
  | "cyrillic-lower"
  | "cyrillic-upper"
  | "greek-lower"
  | "greek-upper"
  | "han"
  | "hiragana"
  | "katakana"
  | "hangul"
  | "fullwidth"
  | "emoji"
  | "other";

// Latin-1's accented letters (ÿ aside: its capital is outside Latin-1): a transliteration table that
// stops at Latin-1 is a partial fix, not a table of the tested letters, and must not look like one.
const LATIN_LOWER = "éèêëàâäáãåçíìîïñóòôöõúùûüý";

const POOLS: Partial<Record<CharClass, readonly string[]>> = {
  lower: [..."abcdefghijklmnopqrstuvwxyz"],
  upper: [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"],
  "latin-lower": [...LATIN_LOWER],
  "latin-upper": [...LATIN_LOWER.toUpperCase()],
  "cyrillic-lower": [..."абвгдежзийклмнопрстуфхцчшщыэюя"],
  "cyrillic-upper": [..."АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЫЭЮЯ"],
  "greek-lower": [..."αβγδεζηθικλμνξοπρστυφχψω"],
  "greek-upper": [..."ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"],
  han: [..."山川田木水火土金日月人大小中上下口手目耳心花草竹石糸雨雪雲風空海森林村町"],
  hiragana: [..."あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"],
  katakana: [..."アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワ"],
  hangul: [..."가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초코토포호"],
  fullwidth: [
    ..."ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ",
  ],
  emoji: [..."😀😃😄😁😆😅😂🙂🙃😉😊😇🎉🚀🌟🍕🐍🦊🌈🔥🎈🍀🐢🌵"],
};

/** Latin letters outside ASCII that decompose (é = e + ◌́): the only ones substituted. */
const DECOMPOSABLE = /^\p{Script=Latin}$/u;

export function charClass(ch: string): CharClass {
  if (ch >= "a" && ch <= "z") return "lower";
  if (ch >= "A" && ch <= "Z") return "upper";
  if (ch >= "0" && ch <= "9") return "digit";
  if (/^\s$/u.test(ch)) return "space";
  if (ch.length === 1 && ch.charCodeAt(0) < 0x80) return "punct";
  if (DECOMPOSABLE.test(ch) && ch.normalize("NFD").length > 1) {
    if (/^\p{Ll}$/u.test(ch)) return "latin-lower";
    if (/^\p{Lu}$/u.test(ch)) return "latin-upper";
  }
  if (/^\p{Script=Cyrillic}$/u.test(ch)) return /^\p{Lu}$/u.test(ch) ? "cyrillic-upper" : "cyrillic-lower";
  if (/^\p{Script=Greek}$/u.test(ch)) return /^\p{Lu}$/u.test(ch) ? "greek-upper" : "greek-lower";
  if (/^\p{Script=Han}$/u.test(ch)) return "han";
  if (/^\p{Script=Hiragana}$/u.test(ch)) return "hiragana";
  if (/^\p{Script=Katakana}$/u.test(ch)) return "katakana";
  if (/^\p{Script=Hangul}$/u.test(ch)) return "hangul";
  if (/^[\uFF21-\uFF3A\uFF41-\uFF5A]$/u.test(ch)) return "fullwidth";
  if (/^\p{Extended_Pictographic}$/u.test(ch)) return "emoji";
  return "other";
}

/** Classes whose characters are substituted (punctuation and spaces change a string's structure). */
export function isSubstitutable(cls: CharClass): boolean {
  return cls !== "space" && cls !== "punct" && cls !== "other";
}

/** Classes outside ASCII: the inputs hard-coded tables of test inputs most often stop at. */
export function isBeyondAscii(cls: CharClass): boolean {
  return isSubstitutable(cls) && cls !== "lower" && cls !== "upper" && cls !== "digit";
}

/**
 * Another character of `ch`'s class, not in `avoid` when the pool allows, chosen from `seed`; null
 * when the class has no pool. Digits go to a neighbouring digit (they are numbers' neighbours).
 */
export function sameClassReplacement(ch: string, avoid: ReadonlySet<string>, seed: number): string | null {
  const cls = charClass(ch);
  if (cls === "digit") {
    const d = ch.charCodeAt(0) - 48;
    return String(d === 9 ? 8 : d + 1);
  }
  const pool = POOLS[cls];
  if (!pool) return null;
  const fresh = pool.filter((c) => c !== ch && !avoid.has(c));
  const choices = fresh.length ? fresh : pool.filter((c) => c !== ch);
  return choices.length ? choices[seed % choices.length]! : null;
}
