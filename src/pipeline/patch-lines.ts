/** Lines a unified diff adds plus lines it removes (headers excluded): the patch's size for metrics. */
export function changedLines(patch: string): number {
  let count = 0;
  for (const line of patch.split("\n")) {
    if (
      (line.startsWith("+") && !line.startsWith("+++ ")) ||
      (line.startsWith("-") && !line.startsWith("--- "))
    ) {
      count++;
    }
  }
  return count;
}
