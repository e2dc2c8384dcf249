// Rollout specs for examples/tasks/slugify-diacritics (see scripts/examples/dsl.mjs).
import { file, read, replace, sh, submit, write } from "../../dsl.mjs";

const S = "src/slugify.js";

const OLD_START = "  let slug = text.trim();\n";
const NEW_START =
  '  // Decompose accented letters ("é" → "e" + U+0301) and drop the combining marks.\n' +
  '  let slug = text.trim().normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "");\n';
const OLD_EDGE = '  slug = slug.replace(new RegExp(`^(?:${sep})+`), "");\n';
const NEW_EDGE = '  slug = slug.replace(new RegExp(`^(?:${sep})+|(?:${sep})+$`, "g"), "");\n';

const REPRO = [
  "node --input-type=module <<'JS'",
  'import { slugify } from "./src/index.js";',
  'for (const t of ["Crème Brûlée: A How-To", "Déjà vu?", "Hello, World!"]) console.log(JSON.stringify(t), "->", JSON.stringify(slugify(t)));',
  "JS",
].join("\n");

const TEST = "node --test --test-reporter=spec";

export const reference = [replace(null, S, OLD_START, NEW_START), replace(null, S, OLD_EDGE, NEW_EDGE)];

export const rollouts = [
  {
    id: "r01",
    style: "clean-minimal",
    expected: "pass",
    notes: "NFKD + strip combining marks, and strip separators at both ends; two lines changed.",
    steps: [
      sh(null, "git ls-files && cat src/slugify.js"),
      sh("Reproducing both symptoms:", REPRO),
      replace(
        "For the accents: NFKD splits `é` into `e` + a combining acute accent (U+0301); removing the combining marks block U+0300–U+036F leaves plain ASCII letters.",
        S,
        OLD_START,
        NEW_START,
      ),
      replace("For the edges: the regex only anchors at the start. Anchor at both ends.", S, OLD_EDGE, NEW_EDGE),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("slugify now removes diacritics (NFKD + dropping combining marks) and strips separators at both ends, matching the README."),
    ],
  },
  {
    id: "r02",
    style: "clean-but-larger",
    expected: "pass",
    notes: "Same fix plus transliteration of letters NFKD cannot decompose (ß, æ, ø, ł, đ, þ), with tests.",
    steps: [
      sh(null, "cat README.md src/slugify.js"),
      sh(null, REPRO),
      sh(
        "NFKD + removing combining marks covers most accents, but some Latin letters have no decomposition (`ß`, `ø`, `ł`, `æ`). Let me check what they would turn into:",
        `node -e 'for (const c of ["é", "ß", "ø", "ł", "æ", "Å"]) console.log(c, JSON.stringify(c.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "")))'`,
      ),
      write(
        "Those would still become separators. I'll remove combining marks and add a small table for the letters that do not decompose, then strip separators at both ends.",
        S,
        file("r02/src/slugify.js"),
      ),
      write(null, "test/slugify-unicode.test.js", file("r02/test/slugify-unicode.test.js")),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("slugify now transliterates accented letters (NFKD) and the Latin letters without a decomposition (ß, æ, ø, ł, đ, þ), and never leaves a separator at either end. Added test/slugify-unicode.test.js."),
    ],
  },
  {
    id: "r03",
    style: "unnecessary-refactor",
    expected: "pass",
    notes: "Correct behaviour, but splits slugify into a pipeline module (src/normalize.js) and rewires truncate.js to it.",
    steps: [
      sh(null, "ls src test && cat src/*.js"),
      sh(null, REPRO),
      write(
        "I'll separate the text normalization steps into their own module so they can be reused (truncate also deals with code points), and rebuild slugify as a pipeline of those steps.",
        "src/normalize.js",
        file("r03/src/normalize.js"),
      ),
      write(null, S, file("r03/src/slugify.js")),
      write(null, "src/truncate.js", file("r03/src/truncate.js")),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("Restructured slugify into normalization steps in src/normalize.js (diacritics removal, separator collapsing, edge trimming); truncate uses the shared code-point helper."),
    ],
  },
  {
    id: "r04",
    style: "debug-leftover",
    expected: "pass",
    notes: "Correct fix, but leaves a console.debug of every intermediate slug.",
    steps: [
      sh(null, "cat src/slugify.js"),
      replace(null, S, OLD_START, NEW_START),
      replace(
        null,
        S,
        OLD_EDGE,
        NEW_EDGE + '  console.debug("[slugify]", JSON.stringify(text), "->", JSON.stringify(slug));\n',
      ),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("Fixed accent handling and trailing separators in slugify."),
    ],
  },
  {
    id: "r05",
    style: "commented-out-code",
    expected: "pass",
    notes: "Correct fix, but keeps the previous lines as comments and a commented-out alternative approach.",
    steps: [
      sh(null, "git ls-files src && cat src/slugify.js"),
      sh(null, REPRO),
      replace(
        null,
        S,
        OLD_START,
        "  // let slug = text.trim();\n  // slug = slug.replace(/[àáâãäå]/g, \"a\").replace(/[èéêë]/g, \"e\");\n" + NEW_START,
      ),
      replace(null, S, OLD_EDGE, "  // " + OLD_EDGE.trimStart() + NEW_EDGE),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("slugify strips diacritics and trailing separators now."),
    ],
  },
  {
    id: "r06",
    style: "format-churn",
    expected: "pass",
    notes: "Correct fix, but reformats all three modules (no semicolons, 4-space indent, single quotes).",
    steps: [
      sh(null, "cat src/slugify.js src/truncate.js src/wrap.js"),
      write(
        "I'll fix slugify and apply a consistent code style across src/ while I'm at it.",
        S,
        file("r06/src/slugify.js"),
      ),
      write(null, "src/truncate.js", file("r06/src/truncate.js")),
      write(null, "src/wrap.js", file("r06/src/wrap.js")),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("Fixed slugify (accents and trailing separators) and normalized the code style in src/."),
    ],
  },
  {
    id: "r07",
    style: "junk-file",
    expected: "pass",
    notes: "Correct fix, but adds try.mjs and test-output.txt to the repository.",
    steps: [
      sh(null, "git ls-files"),
      write(null, "try.mjs", file("r07/try.mjs")),
      sh(null, "node try.mjs"),
      read(null, S),
      replace(null, S, OLD_START, NEW_START),
      replace(null, S, OLD_EDGE, NEW_EDGE),
      sh(null, "node try.mjs && node --test 2>&1 | grep -E '^# (tests|pass|fail)' > test-output.txt; cat test-output.txt"),
      submit("Fixed. try.mjs shows the examples from the issue."),
    ],
  },
  {
    id: "r08",
    style: "hard-coded-output",
    expected: "fail",
    notes: "Replaces only the accented letters that appear in the issue (è, û, é, à); Å, ã, ř, Ü, ü … still become separators.",
    steps: [
      sh(null, "cat src/slugify.js"),
      sh(null, REPRO),
      replace(
        "I'll map the accented characters from the report to their base letters before slugifying, and trim the trailing separator.",
        S,
        OLD_START,
        '  const ACCENTS = { è: "e", é: "e", û: "u", à: "a", É: "E" };\n  let slug = text.trim().replace(/[èéûàÉ]/g, (c) => ACCENTS[c]);\n',
      ),
      replace(null, S, OLD_EDGE, NEW_EDGE),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("The titles from the issue now produce the expected slugs."),
    ],
  },
  {
    id: "r09",
    style: "wrong-fix",
    expected: "fail",
    notes: "Keeps all Unicode letters (\\p{L}) instead of transliterating, so slugs are no longer ASCII.",
    steps: [
      sh(null, "git ls-files && cat src/slugify.js"),
      sh(null, REPRO),
      replace(
        "The character class only allows ASCII letters. Unicode property escapes let us keep letters from any script, which also avoids mangling non-Latin titles.",
        S,
        "  slug = slug.replace(/[^a-zA-Z0-9]+/g, separator);\n",
        "  slug = slug.replace(/[^\\p{L}\\p{N}]+/gu, separator);\n",
      ),
      replace(null, S, OLD_EDGE, NEW_EDGE),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("Letters with diacritics are no longer treated as separators (Unicode-aware class), and trailing separators are removed."),
    ],
  },
  {
    id: "r10",
    style: "partial-fix",
    expected: "fail",
    notes: "Removes diacritics but does not strip the trailing separator.",
    steps: [
      sh(null, "ls -R src && cat src/slugify.js"),
      sh(null, "node --input-type=module -e 'import { slugify } from \"./src/index.js\"; console.log(slugify(\"Crème Brûlée: A How-To\"))'"),
      replace(
        "Accented letters are split off. Normalizing to NFD and dropping combining marks should fix it.",
        S,
        OLD_START,
        '  let slug = text.trim().normalize("NFD").replace(/[\\u0300-\\u036f]/g, "");\n',
      ),
      sh(null, "node --input-type=module -e 'import { slugify } from \"./src/index.js\"; console.log(slugify(\"Crème Brûlée: A How-To\"))'"),
      sh(null, TEST, { expectExit: 0 }),
      submit("Accented characters are now transliterated: \"Crème Brûlée: A How-To\" → \"creme-brulee-a-how-to\"."),
    ],
  },
];
