/**
 * Shortens a tool result to at most about `capBytes` UTF-8 bytes for the model, keeping the head
 * (a third of the budget: the command's first lines) and the tail (two thirds: where tracebacks,
 * test summaries and exit codes are), with a note in between saying how much was left out. A cut
 * never splits a character.
 */
export function truncateMiddle(text: string, capBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= capBytes) return text;
  const headBytes = Math.floor(capBytes / 3);
  const tailBytes = capBytes - headBytes;
  const head = decodePrefix(bytes.subarray(0, headBytes));
  const tail = decodeSuffix(bytes.subarray(bytes.length - tailBytes));
  const omitted = bytes.length - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return `${head}\n... [output truncated: ${omitted} bytes omitted] ...\n${tail}`;
}

/** The longest whole-character prefix of a byte slice that may end inside a character. */
function decodePrefix(slice: Buffer): string {
  let end = slice.length;
  // Back up over continuation bytes (10xxxxxx) and the lead byte of a character cut short.
  let start = end - 1;
  while (start >= 0 && (slice[start]! & 0xc0) === 0x80) start--;
  if (start >= 0 && slice[start]! >= 0xc0 && start + sequenceLength(slice[start]!) > end) end = start;
  return slice.subarray(0, end).toString("utf8");
}

/** The longest whole-character suffix of a byte slice that may start inside a character. */
function decodeSuffix(slice: Buffer): string {
  let start = 0;
  while (start < slice.length && (slice[start]! & 0xc0) === 0x80) start++;
  return slice.subarray(start).toString("utf8");
}

function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}
