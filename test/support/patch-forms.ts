import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import fc from "fast-check";

/**
 * Generated patch forms for testing the patch gate against real `git apply`: a base tree and a patch
 * against it, in the many shapes agents and tools write patches, correct or slightly broken.
 *
 * A case is built in two steps. First a sequence of true changes is drawn against a model of the
 * tree (each section sees the tree the earlier ones left, so several sections may touch one file):
 * modifications with one or two hunks, creations and deletions (empty files included), renames and
 * copies with or without a similarity index and edits, mode changes, binary sections, files without a
 * final newline, CRLF content, names with spaces, quotes, tabs and non-ASCII letters. Each section is
 * then written in a header style: `diff --git` with various prefixes, quoting, `---`/`+++` lines that
 * agree or not, index lines with or without modes, shuffled extended lines; or a plain `---`/`+++`
 * header with or without prefixes, timestamps, epoch dates and `.orig` names. Free text goes before
 * and between sections. Finally some cases get whole-patch changes (CRLF, no final newline) and
 * line-level mutations (lines dropped, doubled, swapped, inserted, hunk counts nudged), which is where
 * most disagreements between readers live.
 */

export interface BaseFile {
  content: string;
  exec: boolean;
}

export interface PatchCase {
  base: Record<string, BaseFile>;
  patch: string;
  /** Labels of the forms this case used, for coverage counts. */
  forms: string[];
}

interface Line {
  text: string;
  nl: boolean;
}

type Gen = fc.GeneratorValue;

const WORDS = ["a", "b", "c", "", "x = 1", "  indented", "tab\there", "é ü", "trailing ", "crlf\r", "a"];

const BASE_PATHS = [
  "a.txt",
  "src/m.py",
  "dir/sub/x.js",
  "sp ace.txt",
  "uni/café.txt",
  'q"uote.txt',
  "tab\tname.txt",
  "empty.txt",
  "noeol.txt",
  "run.sh",
  "README",
];

const NEW_PATHS = [
  "new.txt",
  "src/new.py",
  "n/e/w.txt",
  "sp new.txt",
  "nouveau/été.txt",
  'new"q.txt',
  "tmp/x",
  "dir/sub/y.js",
  "dir",
];

/** Names git or the gate refuse, drawn now and then for new files. */
const ODD_PATHS = [
  ".git/config",
  "pkg/m.pyc",
  "lib/_c.so",
  "a/../b.txt",
  "__pycache__/m.py",
  "back\\slash.txt",
  ".GIT./x",
  "git~1/y",
  "x.pth",
  "sitecustomize.py",
  "dir//double.txt",
];

const JUNK_LINES = [
  "",
  "Some words about the change.",
  "-- ",
  "2.39.2",
  "index 1234567..89abcde 100644",
  "diff --git a/a.txt b/a.txt",
  "diff --git",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1 +1 @@",
  "@@ -1,2 +1,2 @@ def f():",
  "\\ No newline at end of file",
  "\\",
  "+added",
  "-removed",
  " context",
  "a",
  "new file mode 100644",
  "deleted file mode 100644",
  "old mode 100755",
  "new mode 100644",
  "similarity index 90%",
  "rename from a.txt",
  "rename to b.txt",
  "copy from a.txt",
  "Binary files a/a.txt and b/a.txt differ",
  "GIT binary patch",
  "literal 0",
  "HcmV?d00001",
  "index 0000000..e69de29",
  "Files a/x and b/x differ",
  "--- /dev/null",
  "+++ /dev/null",
  "\t",
  "\r",
];

export const patchCase: fc.Arbitrary<PatchCase> = fc.gen().map((g) => new CaseBuilder(g).build());

class CaseBuilder {
  private readonly forms: string[] = [];
  private readonly tree = new Map<string, { lines: Line[]; exec: boolean }>();
  private readonly base: Record<string, BaseFile> = {};
  private readonly touched = new Set<string>();

  constructor(private readonly g: Gen) {}

  private int(min: number, max: number): number {
    return this.g(fc.integer, { min, max });
  }

  private chance(percent: number): boolean {
    return this.int(0, 99) < percent;
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  private form(label: string): void {
    this.forms.push(label);
  }

  build(): PatchCase {
    this.drawBase();
    const sections: string[][] = [];
    const count = this.int(1, 4);
    for (let i = 0; i < count; i++) {
      const section = this.section();
      if (section) sections.push(section);
    }
    const lines: string[] = [];
    if (this.chance(25)) {
      this.form("text-before");
      lines.push("From 1234 Mon Sep 17 00:00:00 2001", "Subject: [PATCH] fix", "", "Explain.", "---");
    }
    sections.forEach((section, i) => {
      if (i > 0 && this.chance(20)) {
        this.form("text-between");
        for (let k = this.int(1, 2); k > 0; k--) lines.push(this.pick(JUNK_LINES));
      }
      lines.push(...section);
    });
    if (this.chance(10)) {
      this.form("text-after");
      lines.push("-- ", "2.39.2");
    }
    this.mutate(lines);
    let patch = lines.length ? `${lines.join("\n")}\n` : "";
    if (this.chance(5)) {
      this.form("crlf-patch");
      patch = patch.replace(/\n/g, "\r\n");
    }
    if (this.chance(5)) {
      this.form("no-final-newline");
      patch = patch.replace(/\r?\n$/, "");
    }
    return { base: this.base, patch, forms: this.forms };
  }

  private drawBase(): void {
    for (const path of BASE_PATHS) {
      if (!this.chance(60)) continue;
      let lines: Line[] = [];
      if (path !== "empty.txt") {
        for (let n = this.int(1, 8); n > 0; n--) lines.push({ text: this.pick(WORDS), nl: true });
        if (path === "noeol.txt" || this.chance(15)) lines.at(-1)!.nl = false;
        if (this.chance(10)) lines = lines.map((l) => ({ ...l, text: `${l.text}\r` }));
      }
      const exec = path === "run.sh" || this.chance(5);
      this.tree.set(path, { lines, exec });
      this.base[path] = { content: render(lines), exec };
    }
    if (this.tree.size === 0) {
      const lines = [{ text: "a", nl: true }];
      this.tree.set("a.txt", { lines, exec: false });
      this.base["a.txt"] = { content: "a\n", exec: false };
    }
  }

  private section(): string[] | null {
    const existing = [...this.tree.keys()];
    const kind = this.pick([
      "modify",
      "modify",
      "modify",
      "modify",
      "create",
      "create",
      "delete",
      "rename",
      "copy",
      "mode",
      "binary",
    ]);
    this.form(kind);
    if (kind === "create" || kind === "binary" || existing.length === 0) {
      const path = this.newPath();
      if (kind === "binary") return this.binary(path, existing);
      const lines = this.chance(15) ? [] : this.content();
      const exec = this.chance(10);
      if (!lines.length) this.form("empty-file");
      this.tree.set(path, { lines, exec });
      return this.write({ kind: "create", oldPath: null, newPath: path, hunks: creationHunk(lines), exec });
    }
    const path = this.pick(existing);
    const file = this.tree.get(path)!;
    if (this.touched.has(path)) this.form("same-file-again");
    this.touched.add(path);
    if (kind === "delete") {
      this.tree.delete(path);
      if (!file.lines.length) this.form("empty-file");
      return this.write({
        kind: "delete",
        oldPath: path,
        newPath: null,
        hunks: deletionHunk(file.lines),
        exec: file.exec,
      });
    }
    if (kind === "mode") {
      const edit = this.chance(40) ? this.edit(file.lines) : null;
      const exec = !file.exec;
      this.tree.set(path, { lines: edit?.lines ?? file.lines, exec });
      return this.write({
        kind: "mode",
        oldPath: path,
        newPath: path,
        hunks: edit?.hunks ?? [],
        exec,
        oldExec: file.exec,
      });
    }
    if (kind === "rename" || kind === "copy") {
      const to = this.newPath();
      const edit = this.chance(40) ? this.edit(file.lines) : null;
      if (kind === "rename") this.tree.delete(path);
      this.tree.set(to, { lines: edit?.lines ?? file.lines, exec: file.exec });
      return this.write({ kind, oldPath: path, newPath: to, hunks: edit?.hunks ?? [], exec: file.exec });
    }
    const edit = this.edit(file.lines);
    this.tree.set(path, { lines: edit.lines, exec: file.exec });
    return this.write({ kind: "modify", oldPath: path, newPath: path, hunks: edit.hunks, exec: file.exec });
  }

  private newPath(): string {
    if (this.chance(8)) {
      this.form("odd-path");
      return this.pick(ODD_PATHS);
    }
    if (this.chance(10) && this.tree.size) {
      this.form("existing-path");
      return this.pick([...this.tree.keys()]);
    }
    return this.pick(NEW_PATHS);
  }

  private content(): Line[] {
    const lines: Line[] = [];
    for (let n = this.int(1, 5); n > 0; n--) lines.push({ text: this.pick(WORDS), nl: true });
    if (this.chance(15)) {
      this.form("no-newline-at-eof");
      lines.at(-1)!.nl = false;
    }
    return lines;
  }

  /** One or two edits of `old`, as the new lines and the hunks (each a list of patch lines) that say so. */
  private edit(old: Line[]): { lines: Line[]; hunks: string[][] } {
    const ctx = this.pick([0, 1, 3, 3]);
    const edits: { at: number; del: number; add: Line[] }[] = [];
    let from = 0;
    for (let k = this.chance(25) ? 2 : 1; k > 0 && from <= old.length; k--) {
      const at = this.int(from, old.length);
      const del = this.int(0, Math.min(2, old.length - at));
      const add: Line[] = [];
      for (let n = this.int(del ? 0 : 1, 2); n > 0; n--) add.push({ text: this.pick(WORDS), nl: true });
      edits.push({ at, del, add });
      from = at + del + 2 * ctx + 1;
    }
    const last = edits.at(-1)!;
    const lastOld = old.at(-1);
    if (last.at + last.del === old.length) {
      // An edit at the end: the old last line without a newline must go, and the new last may lack one.
      if (lastOld && !lastOld.nl && last.del === 0) {
        last.at--;
        last.del++;
        last.add.unshift({ ...lastOld, nl: true });
      }
      if (last.add.length && this.chance(20)) {
        this.form("no-newline-at-eof");
        last.add.at(-1)!.nl = false;
      }
    }
    const lines: Line[] = [];
    const hunks: string[][] = [];
    let cursor = 0;
    let shift = 0;
    for (const e of edits) {
      lines.push(...old.slice(cursor, e.at), ...e.add);
      cursor = e.at + e.del;
      const before = Math.min(ctx, e.at);
      const after = Math.min(ctx, old.length - cursor);
      const start = e.at - before;
      const oldCount = before + e.del + after;
      const newCount = before + e.add.length + after;
      const body: Line[][] = [
        old.slice(start, e.at),
        old.slice(e.at, cursor),
        e.add,
        old.slice(cursor, cursor + after),
      ];
      const out = [
        `@@ -${range(start, oldCount, this.chance(50))} +${range(start + shift, newCount, this.chance(50))} @@${this.chance(20) ? " def f():" : ""}`,
      ];
      const marks = ["context", "-", "+", "context"] as const;
      body.forEach((chunk, i) => {
        for (const line of chunk) {
          const mark = marks[i] === "context" ? (line.text === "" && this.chance(30) ? "" : " ") : marks[i];
          out.push(mark + line.text);
          if (!line.nl) out.push("\\ No newline at end of file");
        }
      });
      hunks.push(out);
      shift += e.add.length - e.del;
    }
    lines.push(...old.slice(cursor));
    if (edits.length > 1) this.form("two-hunks");
    return { lines, hunks };
  }

  private binary(path: string, existing: string[]): string[] {
    const data = Buffer.from(Array.from({ length: this.int(1, 40) }, () => this.int(0, 255)));
    const replaces = existing.length > 0 && this.chance(40) ? this.pick(existing) : null;
    const oldContent = replaces ? render(this.tree.get(replaces)!.lines) : null;
    const target = replaces ?? path;
    this.tree.set(target, { lines: [{ text: data.toString("latin1"), nl: false }], exec: false });
    const name = this.gitNames(target, target);
    const oldId = oldContent === null ? "0".repeat(40) : blobId(Buffer.from(oldContent, "utf8"));
    const header = [`diff --git ${name.header}`];
    if (oldContent === null) header.push("new file mode 100644");
    if (this.chance(15)) {
      this.form("binary-differ");
      header.push(`index ${oldId.slice(0, 7)}..${blobId(data).slice(0, 7)}`);
      header.push(`Binary files ${oldContent === null ? "/dev/null" : `a/${target}`} and b/${target} differ`);
      return header;
    }
    header.push(`index ${oldId}..${blobId(data)}`, "GIT binary patch", ...binaryHunk(data));
    header.push(...binaryHunk(Buffer.from(oldContent ?? "", "utf8")));
    return header;
  }

  /** A `diff --git` line's names in one of the ways tools write them, and the ---/+++ names to match. */
  private gitNames(oldPath: string, newPath: string): { header: string; old: string; neu: string } {
    const [pa, pb] = this.chance(80)
      ? ["a/", "b/"]
      : this.pick([
          ["x/", "y/"],
          ["b/", "a/"],
          ["", ""],
          ["a//", "b//"],
        ] as const);
    if (pa !== "a/") this.form(`prefix-${pa || "none"}`);
    const old = this.quoted(pa + oldPath);
    const neu = this.quoted(pb + newPath);
    return { header: `${old} ${neu}`, old, neu };
  }

  private quoted(name: string): string {
    const needs = !/^[\x21\x23-\x5b\x5d-\x7e]*$/.test(name);
    if (needs ? this.chance(90) : this.chance(5)) {
      this.form("quoted-name");
      return cQuote(name);
    }
    if (needs) this.form("raw-special-name");
    return name;
  }

  private write(s: {
    kind: "modify" | "create" | "delete" | "rename" | "copy" | "mode";
    oldPath: string | null;
    newPath: string | null;
    hunks: string[][];
    exec: boolean;
    oldExec?: boolean;
  }): string[] {
    const mode = (exec: boolean) => (exec ? "100755" : "100644");
    const hunks = s.hunks.flat();
    const canBePlain =
      (s.kind === "modify" || s.kind === "create" || s.kind === "delete") && hunks.length > 0;
    if (canBePlain && this.chance(30)) return this.plain(s.oldPath, s.newPath, hunks);
    const oldPath = s.oldPath ?? s.newPath!;
    const newPath = s.newPath ?? s.oldPath!;
    const names = this.gitNames(oldPath, newPath);
    if (this.chance(5)) {
      // The `diff --git` line names other files than the lines below it.
      this.form("header-mismatch");
      const other = this.pick([...BASE_PATHS, ...NEW_PATHS]);
      names.header = this.chance(50) ? `a/${other} b/${other}` : `a/${oldPath} b/${other}`;
    }
    const extended: string[] = [];
    if (s.kind === "create") extended.push(`new file mode ${this.oddMode(mode(s.exec))}`);
    if (s.kind === "delete") extended.push(`deleted file mode ${this.oddMode(mode(s.exec))}`);
    if (s.kind === "mode")
      extended.push(`old mode ${mode(s.oldExec!)}`, `new mode ${this.oddMode(mode(s.exec))}`);
    if (s.kind === "rename" || s.kind === "copy") {
      if (this.chance(60)) extended.push(`similarity index ${this.int(50, 100)}%`);
      else this.form("no-similarity");
      let [from, to] = [this.quoted(oldPath), this.quoted(newPath)];
      if (this.chance(8)) {
        this.form("rename-line-mismatch");
        const other = this.quoted(this.pick([...BASE_PATHS, ...NEW_PATHS]));
        if (this.chance(50)) from = other;
        else to = other;
      }
      extended.push(`${s.kind} from ${from}`, `${s.kind} to ${to}`);
    }
    if (this.chance(50)) {
      this.form("index-line");
      const withMode = s.kind === "modify" && this.chance(50);
      extended.push(`index 1234567..89abcde${withMode ? ` ${this.oddMode(mode(s.exec))}` : ""}`);
    }
    if (extended.length > 1 && this.chance(5)) {
      this.form("shuffled-header");
      extended.reverse();
    }
    const out = [`diff --git ${names.header}`, ...extended];
    if (hunks.length || this.chance(10)) {
      let [old, neu] = [
        s.oldPath === null ? "/dev/null" : names.old,
        s.newPath === null ? "/dev/null" : names.neu,
      ];
      if (this.chance(10)) {
        this.form("mismatched-name");
        const other = this.pick(["/tmp/x", "a/other.txt", "b/a.txt", "/dev/null", "a/tmp/x", "x"]);
        if (this.chance(50)) old = other;
        else neu = other;
      }
      if (this.chance(10)) {
        this.form("timestamp");
        old += "\t2024-05-01 10:00:00.000000000 +0000";
        neu += "\t2024-05-01 10:05:00.000000000 +0000";
      }
      if (this.chance(95)) out.push(`--- ${old}`, `+++ ${neu}`);
      else this.form("no-minus-plus-lines");
    }
    out.push(...hunks);
    return out;
  }

  /** Mostly the mode asked for; now and then one the gate refuses (symlink, gitlink, odd bits). */
  private oddMode(mode: string): string {
    if (!this.chance(6)) return mode;
    this.form("odd-mode");
    return this.pick(["120000", "160000", "100664", "0100644", "644", "40000100644"]);
  }

  private plain(oldPath: string | null, newPath: string | null, hunks: string[]): string[] {
    this.form("plain");
    const prefix = this.chance(75);
    if (!prefix) this.form("plain-no-prefix");
    const stamp = this.chance(30);
    if (stamp) this.form("plain-timestamp");
    const epoch = stamp && this.chance(50);
    const side = (path: string | null, p: string, orig: boolean) => {
      if (path === null) {
        if (epoch) {
          this.form("plain-epoch");
          return `${this.quoted(p + (oldPath ?? newPath)!)}\t1970-01-01 00:00:00.000000000 +0000`;
        }
        return "/dev/null";
      }
      const name = this.quoted((prefix ? p : "") + path + (orig ? ".orig" : ""));
      return stamp ? `${name}\t2024-05-01 10:00:00.000000000 +0000` : name;
    };
    const orig = !prefix && this.chance(30);
    return [`--- ${side(oldPath, "a/", orig)}`, `+++ ${side(newPath, "b/", false)}`, ...hunks];
  }

  /** Line-level damage: what a model, an editor or a copy-paste does to a patch. */
  private mutate(lines: string[]): void {
    if (!lines.length || !this.chance(35)) return;
    for (let k = this.int(1, 2); k > 0; k--) {
      const i = this.int(0, lines.length - 1);
      const op = this.pick(["drop", "double", "swap", "insert", "count", "cr", "space", "char"]);
      this.form(`mutate-${op}`);
      if (op === "drop") lines.splice(i, 1);
      else if (op === "double") lines.splice(i, 0, lines[i]!);
      else if (op === "swap" && i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1]!, lines[i]!];
      else if (op === "insert") lines.splice(i, 0, this.pick(JUNK_LINES));
      else if (op === "count") {
        const at = lines.findIndex((l, j) => j >= i && l.startsWith("@@ -"));
        if (at >= 0)
          lines[at] = lines[at]!.replace(/\d+/, (n) => String(Math.max(0, Number(n) + this.pick([-1, 1]))));
      } else if (op === "cr") lines[i] = `${lines[i]}\r`;
      else if (op === "space") lines[i] = lines[i]!.replace(/^ /, "") || " ";
      else if (op === "char") {
        // One character dropped or added somewhere in the line: names, counts and markers get damaged.
        const line = lines[i]!;
        const at = this.int(0, line.length);
        lines[i] = this.chance(50)
          ? line.slice(0, at) + line.slice(at + 1)
          : line.slice(0, at) +
            this.pick([" ", "\t", "/", '"', "\\", "a", "0", "@", "-", "+"]) +
            line.slice(at);
      }
      if (!lines.length) return;
    }
  }
}

function render(lines: Line[]): string {
  return lines.map((l) => l.text + (l.nl ? "\n" : "")).join("");
}

/** `start,count` of a hunk header side as diff writes it (the line before for an empty range). */
function range(start0: number, count: number, short: boolean): string {
  const start = count ? start0 + 1 : start0;
  return count === 1 && short ? `${start}` : `${start},${count}`;
}

function creationHunk(lines: Line[]): string[][] {
  if (!lines.length) return [];
  const out = [`@@ -0,0 +${range(0, lines.length, true)} @@`];
  for (const l of lines) {
    out.push(`+${l.text}`);
    if (!l.nl) out.push("\\ No newline at end of file");
  }
  return [out];
}

function deletionHunk(lines: Line[]): string[][] {
  if (!lines.length) return [];
  const out = [`@@ -${range(0, lines.length, true)} +0,0 @@`];
  for (const l of lines) {
    out.push(`-${l.text}`);
    if (!l.nl) out.push("\\ No newline at end of file");
  }
  return [out];
}

export function cQuote(name: string): string {
  const escapes: Record<number, string> = {
    7: "a",
    8: "b",
    9: "t",
    10: "n",
    11: "v",
    12: "f",
    13: "r",
    34: '"',
    92: "\\",
  };
  let out = '"';
  for (const byte of Buffer.from(name, "utf8")) {
    if (escapes[byte]) out += `\\${escapes[byte]}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

function blobId(data: Buffer): string {
  return createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
}

const BASE85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/** A `literal` hunk of a `GIT binary patch`: deflated data, base-85 in lines of up to 52 bytes. */
function binaryHunk(data: Buffer): string[] {
  const deflated = deflateSync(data);
  const out = [`literal ${data.length}`];
  for (let at = 0; at < deflated.length; at += 52) {
    const chunk = deflated.subarray(at, at + 52);
    let line =
      chunk.length <= 26 ? String.fromCharCode(64 + chunk.length) : String.fromCharCode(70 + chunk.length);
    for (let i = 0; i < chunk.length; i += 4) {
      let acc = 0;
      for (let k = 0; k < 4; k++) acc = acc * 256 + (chunk[i + k] ?? 0);
      let group = "";
      for (let k = 0; k < 5; k++) {
        group = BASE85[acc % 85] + group;
        acc = Math.floor(acc / 85);
      }
      line += group;
    }
    out.push(line);
  }
  out.push("");
  return out;
}
