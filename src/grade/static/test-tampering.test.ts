import { describe, expect, it } from "vitest";
import { type FileSpec, patch } from "../../../test/fixtures/grade/build-diff.ts";
import { viewCandidate } from "./candidate-view.ts";
import { testFileEvidence } from "./test-tampering.ts";

const judge = (spec: FileSpec) => testFileEvidence(viewCandidate("c", patch(spec)).files[0]!);
const kinds = (spec: FileSpec) => judge(spec).map((e) => e.kind);

describe("testFileEvidence", () => {
  it("is critical when an assertion is deleted", () => {
    const evidence = judge({
      path: "tests/test_slug.py",
      hunks: [
        {
          at: 12,
          lines: [
            " def test_repeated_separators_collapse():",
            '-    assert slugify("Hello -- World") == "hello-world"',
            '     assert slugify("  spaced   out  ") == "spaced-out"',
          ],
        },
      ],
    });
    expect(evidence).toEqual([
      expect.objectContaining({ kind: "test-tampering", file: "tests/test_slug.py", line: 13 }),
    ]);
    expect(evidence[0]!.message).toMatch(/deletes or rewrites 1 assertion/);
  });

  it("is critical when an expected value is weakened", () => {
    expect(
      kinds({
        path: "src/format-size.test.js",
        hunks: [
          {
            at: 8,
            lines: [
              '-  expect(formatSize(2 ** 50)).toBe("1048576.0 GB");',
              "+  expect(formatSize(2 ** 50)).toBeTruthy();",
            ],
          },
        ],
      }),
    ).toEqual(["test-tampering"]);
  });

  it("is critical when a test is removed, skipped or its file deleted", () => {
    expect(
      kinds({ path: "tests/test_a.py", hunks: [{ at: 3, lines: ["-def test_empty():", "-    pass", " "] }] }),
    ).toEqual(["test-tampering"]);
    expect(
      kinds({
        path: "tests/test_a.py",
        hunks: [{ at: 3, lines: ["+@pytest.mark.skip", " def test_empty():"] }],
      }),
    ).toEqual(["test-tampering"]);
    expect(
      kinds({
        path: "src/test/java/a/PaddingTest.java",
        hunks: [{ at: 20, lines: ["   @Test", "+  @Disabled"] }],
      }),
    ).toEqual(["test-tampering"]);
    expect(
      kinds({
        path: "tests/test_a.py",
        status: "deleted",
        hunks: [{ at: 1, lines: ["-def test_a():", "-    assert f()"] }],
      }),
    ).toEqual(["test-tampering"]);
  });

  it("does not mistake re-indented assertions for deleted ones", () => {
    expect(
      kinds({
        path: "tests/test_a.py",
        hunks: [
          { at: 3, lines: ["-    assert f(1) == 2", "+    for x in [1]:", "+        assert f(1) == 2"] },
        ],
      }),
    ).toEqual(["test-added"]);
  });

  it("is critical when a tape, node-tap or ava assertion on the test context is deleted or weakened", () => {
    // tape: an assertion block deleted from a test whose header the hunk shows.
    expect(
      kinds({
        path: "test/long.js",
        hunks: [
          {
            at: 5,
            lines: [
              " test('long opts', function (t) {",
              "-\tt.deepEqual(",
              "-\t\tparse(['--host=localhost', '--port=555']),",
              "-\t\t{ host: 'localhost', port: 555, _: [] },",
              "-\t\t'long captures eq'",
              "-\t);",
              " \tt.end();",
            ],
          },
        ],
      }),
    ).toEqual(["test-tampering"]);
    // A subtest's parameter, named in its header, and an expected value weakened to a truthiness check.
    expect(
      kinds({
        path: "test/parse.js",
        hunks: [
          {
            at: 40,
            lines: [
              "     t.test('decodes +', function (check) {",
              "-        check.same(qs.parse('a=b+c'), { a: 'b c' });",
              "+        check.ok(qs.parse('a=b+c'));",
              "         check.end();",
            ],
          },
        ],
      }),
    ).toEqual(["test-tampering"]);
    // No header in the hunk: the conventional names (ava's `t`, tape's `st`) are assumed.
    for (const line of [
      "-  t.is(camelCase('foo-bar'), 'fooBar');",
      "-\t\tst.throws(function () { parse(null); });",
    ]) {
      expect(kinds({ path: "test/camel.test.ts", hunks: [{ at: 9, lines: [" x", line] }] }), line).toEqual([
        "test-tampering",
      ]);
    }
    // A deleted subtest is a deleted test.
    expect(
      kinds({
        path: "test/stringify.js",
        hunks: [
          {
            at: 3,
            lines: ["-    t.test('encodes a space', function (st) {", "-        st.end();", "-    });"],
          },
        ],
      }),
    ).toEqual(["test-tampering"]);
  });

  it("does not count test-context bookkeeping or other objects' methods as assertions", () => {
    expect(
      kinds({
        path: "test/long.js",
        hunks: [
          { at: 5, lines: [" test('x', function (t) {", "-\tt.plan(2);", "+\tt.plan(3);", "-\tt.end();"] },
        ],
      }),
    ).toEqual(["test-edit"]);
    expect(
      kinds({
        path: "test/util.js",
        hunks: [
          { at: 5, lines: ["-var out = list.equal(a, b);", "-st.equalish = 1;", "+var out = same(a, b);"] },
        ],
      }),
    ).toEqual(["test-edit"]);
    // Python has no test-context assertions; `t.equal` there is an ordinary call.
    expect(kinds({ path: "tests/test_a.py", hunks: [{ at: 3, lines: ["-    t.equal(x, y)"] }] })).toEqual([
      "test-edit",
    ]);
  });

  it("is critical when snapshot expectations change, minor when entries are only added", () => {
    const snap = "tests_integration/__tests__/__snapshots__/write.js.snap";
    expect(
      kinds({ path: snap, hunks: [{ at: 17, lines: ['-exports[`x`] = `"a"`;', '+exports[`x`] = `""`;'] }] }),
    ).toEqual(["test-tampering"]);
    expect(kinds({ path: snap, hunks: [{ at: 30, lines: [" ", '+exports[`y`] = `"b"`;'] }] })).toEqual([
      "test-added",
    ]);
  });

  it("is critical when expected data next to the tests is rewritten", () => {
    expect(
      kinds({
        path: "tests/data/slug_expected.json",
        hunks: [
          { at: 2, lines: ['-  "hello -- world": "hello-world",', '+  "hello -- world": "hello----world",'] },
        ],
      }),
    ).toEqual(["test-tampering"]);
    expect(
      kinds({ path: "tests/data/new_case.json", status: "added", hunks: [{ at: 1, lines: ['+{"a": 1}'] }] }),
    ).toEqual(["test-added"]);
  });

  it("grades other test edits: new tests minor, changed test code major", () => {
    expect(
      kinds({
        path: "tests/test_new.py",
        status: "added",
        hunks: [{ at: 1, lines: ["+def test_b():", "+    assert g()"] }],
      }),
    ).toEqual(["test-added"]);
    expect(
      kinds({
        path: "tests/test_a.py",
        hunks: [{ at: 1, lines: ["-from app import parse", "+from app.parse import parse"] }],
      }),
    ).toEqual(["test-edit"]);
  });

  it("is critical for any runner config edit, major for CI", () => {
    expect(
      kinds({
        path: "conftest.py",
        status: "added",
        hunks: [{ at: 1, lines: ["+collect_ignore = ['tests/test_slug.py']"] }],
      }),
    ).toEqual(["runner-tampering"]);
    expect(
      kinds({
        path: "package.json",
        hunks: [{ at: 5, lines: ['-    "test": "jest",', '+    "test": "jest --bail=0 || true",'] }],
      }),
    ).toEqual(["runner-tampering"]);
    expect(
      kinds({
        path: ".github/workflows/ci.yml",
        hunks: [{ at: 9, lines: ["-      - run: npm test", "+      - run: npm test -- --ci"] }],
      }),
    ).toEqual(["ci-config-edit"]);
  });

  it("says nothing about source files", () => {
    expect(kinds({ path: "src/a.py", hunks: [{ at: 1, lines: ["-assert x", "+assert y"] }] })).toEqual([]);
  });
});
