import { describe, expect, it } from "vitest";
import { renderDiff } from "./diff-view.ts";

const patch = [
  "diff --git a/pkg/core.py b/pkg/core.py",
  "index 1111111..2222222 100644",
  "--- a/pkg/core.py",
  "+++ b/pkg/core.py",
  "@@ -10,3 +10,4 @@ def first_of_next_month(day):",
  "     if day.month == 12:",
  "-        return date(day.year, 13, 1)",
  "+        return date(day.year + 1, 1, 1)",
  '+    print("<debug>")',
  "     return date(day.year, day.month + 1, 1)",
  "diff --git a/scratch.py b/scratch.py",
  "new file mode 100644",
  "index 0000000..3333333",
  "--- /dev/null",
  "+++ b/scratch.py",
  "@@ -0,0 +1 @@",
  "+x = 1",
  "",
].join("\n");

describe("renderDiff", () => {
  it("shows each file with its hunks, old and new line numbers, and counts", () => {
    const { html, summary } = renderDiff(patch);
    expect(summary).toEqual({ files: 2, added: 3, removed: 1 });
    expect(html).toContain('data-file="pkg/core.py"');
    expect(html).toContain("scratch.py (added)");
    expect(html).toContain("@@ -10,3 +10,4 @@ def first_of_next_month(day):");
    // The added line 11 of the new file, numbered on the new side only.
    expect(html).toContain(
      '<tr class="add" data-line="11"><td class="ln"></td><td class="ln">11</td><td class="code">+        return date(day.year + 1, 1, 1)</td></tr>',
    );
    expect(html).toContain('<tr class="del" data-line="11"><td class="ln">11</td><td class="ln"></td>');
  });

  it("escapes the patch's text: a candidate's code is never markup in the report", () => {
    const { html } = renderDiff(patch);
    expect(html).toContain("print(&#34;&#60;debug&#62;&#34;)");
    expect(html).not.toContain("<debug>");
    const hostile = renderDiff(
      [
        'diff --git a/"><script>x()</script> b/"><script>x()</script>',
        "--- a/x",
        "+++ b/x",
        "@@ -1 +1 @@",
        "-</template><img src=x onerror=alert(1)>",
        "+</textarea>",
        "",
      ].join("\n"),
    ).html;
    expect(hostile).not.toMatch(/<script|<img|<\/template|<\/textarea/);
  });

  it("renders a plain unified diff (no `diff --git` header) like a git diff", () => {
    const { html, summary } = renderDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
    expect(html).toContain('data-file="x"');
    expect(summary).toEqual({ files: 1, added: 1, removed: 1 });
  });

  it("shows a patch that does not parse as raw text, saying so", () => {
    const { html, summary } = renderDiff("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n");
    expect(html).toContain("not a git diff");
    expect(html).toContain('<tr class="add"><td class="code">+b</td></tr>');
    expect(summary).toEqual({ files: 0, added: 1, removed: 1 });
    expect(renderDiff("").summary).toEqual({ files: 0, added: 0, removed: 0 });
  });
});
