import type { CandidateView } from "./candidate-view.ts";
import { isScriptPath } from "./paths.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Whether the project's library code already wrote some text before the patches, e.g. a call such
 * as `console.warn(`: then a candidate using it follows the project's own habit. The evidence is the
 * library files of the workspace, and, with or without one, what the group's patches show of the
 * original library code (the context and deleted lines of every candidate). Scripts, examples and
 * entry points print by nature and tests are not library code, so neither counts.
 */
export type ProjectUsage = (text: string) => boolean;

export function projectUsage(views: readonly CandidateView[], workspace: Workspace | null): ProjectUsage {
  // Gathered on the first question: most groups never ask one.
  let shownText: string | undefined;
  const shown = () => {
    const lines: string[] = [];
    for (const view of views)
      for (const file of view.files) {
        if (file.role !== "source" || isScriptPath(file.path)) continue;
        for (const hunk of file.hunks)
          for (const line of hunk.lines) if (line.kind !== "add") lines.push(line.text);
      }
    return lines.join("\n");
  };
  const answers = new Map<string, boolean>();
  return (text) => {
    let hit = answers.get(text);
    if (hit === undefined) {
      shownText ??= shown();
      // The workspace is read only when the patches do not already answer.
      hit = shownText.includes(text) || (workspace?.librarySourceText().includes(text) ?? false);
      answers.set(text, hit);
    }
    return hit;
  };
}
