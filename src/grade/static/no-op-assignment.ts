import type { FileView } from "./candidate-view.ts";
import type { Evidence } from "./evidence.ts";

/** `x = x` (or `this.x = this.x;`): what is left when an edit deleted a right-hand side but not the line. */
const SELF_ASSIGNMENT =
  /^\s*((?:self\.|this\.)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*=\s*\1\s*;?\s*(?:(?:#|\/\/).*)?$/;

export function noOpEvidence(file: FileView): Evidence[] {
  if (file.role !== "source" || file.language === null) return [];
  return file.changes
    .filter((c) => c.kind === "add" && SELF_ASSIGNMENT.test(c.text))
    .map((c) => ({
      kind: "no-op-assignment" as const,
      file: file.path,
      line: c.newLine,
      message: `\`${c.text.trim()}\` assigns a value to itself and does nothing; delete the line`,
    }));
}
