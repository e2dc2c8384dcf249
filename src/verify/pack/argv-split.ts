/**
 * Splits a command line into argv the way a POSIX shell would for plain words: whitespace separates,
 * '…' is literal, "…" allows \" \\ \$ \` escapes, a backslash outside quotes escapes the next
 * character. No expansion of any kind: the result is run without a shell (`--test-command` of
 * `gagar tasks import`). Throws on an unterminated quote.
 */
export function splitCommand(line: string): string[] {
  const argv: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated ' quote");
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        word += line[j];
      }
      if (j >= line.length) throw new Error('unterminated " quote');
      i = j;
      inWord = true;
    } else if (ch === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) argv.push(word);
      word = "";
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) argv.push(word);
  return argv;
}
