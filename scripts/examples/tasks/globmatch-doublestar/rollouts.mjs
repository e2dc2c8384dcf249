// Rollout specs for examples/tasks/globmatch-doublestar (see scripts/examples/dsl.mjs).
import { dedent, file, read, replace, sh, submit, write } from "../../dsl.mjs";

const C = "src/compile.js";
const M = "src/match.js";

const BUGGY = dedent(`
        if (pattern[i + 1] === "*") {
          // globstar: any characters, across directories
          re += ".*";
          i++;
        } else {
`, 8);

const FIXED = dedent(`
        if (pattern[i + 1] === "*") {
          // globstar: "**/" is zero or more whole directories; anywhere else, any characters.
          if (pattern[i + 2] === "/") {
            re += "(?:.*/)?";
            i += 2;
          } else {
            re += ".*";
            i++;
          }
        } else {
`, 8);

const REPRO = dedent(`
  node --input-type=module <<'JS'
  import { filter, globToRegExp, isMatch } from "./src/index.js";
  console.log(isMatch("src/index.js", "src/**/*.js"), isMatch("src/lib/util.js", "src/**/*.js"));
  console.log(filter(["a.md", "b.js", "docs/c.md"], "**/*.md"));
  console.log(globToRegExp("src/**/*.js"));
  JS
`);

const TEST = "node --test --test-reporter=spec";

export const reference = [replace(null, C, BUGGY, FIXED)];

export const rollouts = [
  {
    id: "r01",
    style: "clean-minimal",
    expected: "pass",
    notes: "Compiles a '**/' segment to '(?:.*/)?' (zero or more directories); other '**' unchanged.",
    steps: [
      sh(null, "git ls-files && cat src/compile.js"),
      sh("Reproducing, and printing the compiled regex:", REPRO),
      replace(
        "As the issue says, `src/**/*.js` becomes `^src/.*/...`, which requires a second slash. When `**` is followed by `/`, the whole `**/` should be an optional run of directories: `(?:.*/)?`.",
        C,
        BUGGY,
        FIXED,
      ),
      sh(null, REPRO),
      sh(
        "Checking that partial directory names are still rejected:",
        `node --input-type=module -e 'import { isMatch } from "./src/index.js"; console.log(isMatch("lib/sub-index.js", "lib/**/index.js"), isMatch("lib/index.js", "lib/**/index.js"))'`,
      ),
      sh(null, TEST, { expectExit: 0 }),
      submit("A `**/` segment now compiles to `(?:.*/)?`, i.e. zero or more whole directories, so `src/**/*.js` matches `src/index.js` and `**/*.md` matches root files; partial directory names still do not match."),
    ],
  },
  {
    id: "r02",
    style: "clean-but-larger",
    expected: "pass",
    notes: "Treats '**' as a globstar only when it is a whole path segment (as the README table says), otherwise like '*'; adds tests.",
    steps: [
      sh(null, "cat README.md src/compile.js"),
      sh(null, REPRO),
      sh(
        "The README says `**` is special only as a whole path segment. Currently `a**b` also crosses directories:",
        `node --input-type=module -e 'import { isMatch } from "./src/index.js"; console.log(isMatch("a/x/b", "a**b"))'`,
      ),
      replace(
        "I'll handle runs of stars in one place: a whole-segment `**` followed by `/` is zero or more directories, a trailing `**` is everything below, and any other run of stars behaves like `*`.",
        C,
        dedent(`
                case "*":
                  if (pattern[i + 1] === "*") {
                    // globstar: any characters, across directories
                    re += ".*";
                    i++;
                  } else {
                    re += \`\${noDot}[^/]*\`;
                  }
                  break;
        `, 6),
        dedent(`
                case "*": {
                  let end = i;
                  while (pattern[end] === "*") end++;
                  const wholeSegment = (i === 0 || pattern[i - 1] === "/") && (end === pattern.length || pattern[end] === "/");
                  if (end - i >= 2 && wholeSegment && end < pattern.length) {
                    // "**/": zero or more whole directories
                    re += "(?:.*/)?";
                    i = end; // also consumes the "/"
                  } else if (end - i >= 2 && wholeSegment) {
                    // trailing "**": everything below
                    re += ".*";
                    i = end - 1;
                  } else {
                    // "*", or stars inside a segment such as "a**b", stay within one segment
                    re += \`\${noDot}[^/]*\`;
                    i = end - 1;
                  }
                  break;
                }
        `, 6),
      ),
      write(null, "test/globstar.test.js", file("r02/test/globstar.test.js")),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("`**` now follows the README: as a whole segment, `**/` matches zero or more directories and a trailing `**` everything below; stars inside a segment act like `*`. Added test/globstar.test.js."),
    ],
  },
  {
    id: "r03",
    style: "unnecessary-refactor",
    expected: "pass",
    notes: "Correct globstar semantics, but compile.js is rewritten as a tokenizer plus an emitter.",
    steps: [
      sh(null, "wc -l src/*.js && cat src/compile.js"),
      sh(null, REPRO),
      write(
        "The single loop with index juggling makes the globstar cases hard to express. I'll split compilation into a tokenizer (stars, globstar segments, classes, braces, literals) and an emitter that turns tokens into regex source.",
        C,
        file("r03/src/compile.js"),
      ),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("Rewrote the glob compiler as tokenizer + emitter; globstar segments now match zero or more directories. All tests pass."),
    ],
  },
  {
    id: "r04",
    style: "debug-leftover",
    expected: "pass",
    notes: "Correct fix, but globToRegExp now console.logs every compiled pattern.",
    steps: [
      sh(null, "ls -R src test && cat src/compile.js"),
      replace(
        "Let me print the generated regexes.",
        C,
        '  return new RegExp(`^${re}$`, nocase ? "i" : "");\n',
        '  console.log("globToRegExp", pattern, "=>", `^${re}$`);\n  return new RegExp(`^${re}$`, nocase ? "i" : "");\n',
      ),
      sh(null, REPRO),
      replace("`.*` followed by a literal `/` needs at least one directory. Making `**/` optional as a unit.", C, BUGGY, FIXED),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("Fixed globstar matching of zero directories."),
    ],
  },
  {
    id: "r05",
    style: "junk-file",
    expected: "pass",
    notes: "Correct fix, but leaves debug.mjs and a copied fixture list (paths.txt) in the repository.",
    steps: [
      sh(null, "git ls-files"),
      write(null, "paths.txt", file("r05/paths.txt")),
      write(null, "debug.mjs", file("r05/debug.mjs")),
      sh(null, "node debug.mjs"),
      read(null, C),
      replace(null, C, BUGGY, FIXED),
      sh(null, "node debug.mjs"),
      sh(null, TEST, { expectExit: 0 }),
      submit("Globstar now matches zero directories. debug.mjs prints the matches for paths.txt."),
    ],
  },
  {
    id: "r06",
    style: "test-edit",
    expected: "pass",
    notes: "Correct fix; also rewrites an existing test in test/match.test.js, dropping one of its negative assertions.",
    steps: [
      sh(null, "git ls-files && cat test/match.test.js"),
      read(null, C),
      replace(null, C, BUGGY, FIXED),
      sh(null, REPRO),
      replace(
        "I'll extend the existing globstar test with the zero-directory case from the issue.",
        "test/match.test.js",
        dedent(`
            assert.ok(isMatch("src/a/b/c/d.js", "src/**/*.js"));
            assert.ok(!isMatch("test/a/b.js", "src/**/*.js"));
        `, 4),
        dedent(`
            assert.ok(isMatch("src/a/b/c/d.js", "src/**/*.js"));
            assert.ok(isMatch("src/index.js", "src/**/*.js"));
            assert.ok(isMatch("README.md", "**/*.md"));
        `, 4),
      ),
      sh(null, TEST, { expectExit: 0 }),
      submit("Fixed `**/` to match zero directories and updated the globstar test."),
    ],
  },
  {
    id: "r07",
    style: "commented-out-code",
    expected: "pass",
    notes: "Correct fix, with the old globstar lines left behind as comments.",
    steps: [
      sh(null, "cat src/compile.js"),
      sh(null, REPRO),
      replace(
        null,
        C,
        BUGGY,
        dedent(`
                if (pattern[i + 1] === "*") {
                  // globstar: any characters, across directories
                  // re += ".*";
                  // i++;
                  if (pattern[i + 2] === "/") {
                    re += "(?:.*/)?";
                    i += 2;
                  } else {
                    re += ".*";
                    i++;
                  }
                } else {
        `, 8),
      ),
      sh(null, `${TEST} && ${REPRO}`, { expectExit: 0 }),
      submit("`**/` can now match zero directories."),
    ],
  },
  {
    id: "r08",
    style: "hard-coded-output",
    expected: "fail",
    notes: "Retries the two patterns from the issue ('src/**/*.js', '**/*.md') without their '**/'; every other globstar pattern is still broken.",
    steps: [
      sh(null, "cat src/match.js"),
      sh(null, REPRO),
      replace(
        "The patterns from the report should also cover files directly below the globstar. I'll retry those patterns without the `**/` segment.",
        M,
        "    if (compiled(pattern, options).test(target)) matched = !negated;\n",
        dedent(`
              let hit = compiled(pattern, options).test(target);
              if (!hit && (pattern === "src/**/*.js" || pattern === "**/*.md")) {
                hit = compiled(pattern.replace("**/", ""), options).test(target);
              }
              if (hit) matched = !negated;
        `, 4),
      ),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("`src/**/*.js` now matches `src/index.js` and `**/*.md` matches root-level files, as in the README."),
    ],
  },
  {
    id: "r09",
    style: "wrong-fix",
    expected: "fail",
    notes: "Compiles '**/' to '.*' (dropping the slash), so 'lib/**/index.js' also matches 'lib/sub-index.js'.",
    steps: [
      sh(null, "git ls-files && cat src/compile.js"),
      sh(null, REPRO),
      replace(
        "The extra `/` after `.*` is the problem. If the globstar swallows its trailing slash, `.*` can match the empty string and the directory part together.",
        C,
        BUGGY,
        dedent(`
                if (pattern[i + 1] === "*") {
                  // globstar: any characters, across directories (including its trailing slash)
                  re += ".*";
                  i += pattern[i + 2] === "/" ? 2 : 1;
                } else {
        `, 8),
      ),
      sh(null, REPRO),
      sh(null, TEST, { expectExit: 0 }),
      submit("Globstar now also matches zero directories (`src/**/*.js` matches `src/index.js`)."),
    ],
  },
  {
    id: "r10",
    style: "partial-fix",
    expected: "fail",
    notes: "Handles '/**/' in the middle of a pattern only; a leading '**/' still needs a directory.",
    steps: [
      sh(null, "cat src/compile.js"),
      sh(null, `node --input-type=module -e 'import { isMatch } from "./src/index.js"; console.log(isMatch("src/index.js", "src/**/*.js"))'`),
      replace(
        "A `/**/` between two segments should collapse to a single `/` when there are no directories in between.",
        C,
        BUGGY,
        dedent(`
                if (pattern[i + 1] === "*") {
                  if (pattern[i - 1] === "/" && pattern[i + 2] === "/") {
                    // "/**/" in the middle: zero or more directories
                    re += "(?:.*/)?";
                    i += 2;
                  } else {
                    // globstar: any characters, across directories
                    re += ".*";
                    i++;
                  }
                } else {
        `, 8),
      ),
      sh(null, `node --input-type=module -e 'import { isMatch } from "./src/index.js"; console.log(isMatch("src/index.js", "src/**/*.js"), isMatch("src/a/b.js", "src/**/*.js"))'`),
      sh(null, TEST, { expectExit: 0 }),
      submit("`src/**/*.js` now matches files directly in `src/` as well as in subdirectories."),
    ],
  },
];
