import type { FileView } from "./candidate-view.ts";
import type { Evidence } from "./evidence.ts";

/**
 * Files that should never be in a fix: leftovers of the agent's process (logs, .orig/.rej, editor
 * backups, caches, build output, archives, scratch scripts at the repository root) and binary blobs.
 * Deleting such a file is not reported: removing junk is not a defect of the candidate.
 */
export function junkEvidence(file: FileView): Evidence[] {
  if (file.status === "deleted") return [];
  if (file.role === "scratch") {
    return [
      {
        kind: "junk-file",
        file: file.path,
        message: `adds scratch script ${file.path} at the repository root; reproduction scripts belong in the trajectory, not the patch`,
      },
    ];
  }
  if (file.role === "junk") {
    return [
      {
        kind: "junk-file",
        file: file.path,
        message: `${file.status === "added" ? "adds" : "changes"} ${file.path}, ${junkKind(file.path)}; remove it from the patch`,
      },
    ];
  }
  if (file.binary) {
    return [
      {
        kind: "binary-file",
        file: file.path,
        message: `${file.status === "added" ? "adds" : "changes"} binary file ${file.path}, which cannot be reviewed; a source fix does not need it`,
      },
    ];
  }
  return [];
}

function junkKind(path: string): string {
  if (/\.(orig|rej)$/.test(path)) return "a leftover of a failed merge or patch";
  if (/\.(bak|swp|swo|tmp)$|~$|(^|\/)#[^/]*#$/.test(path)) return "an editor backup or temporary file";
  if (/\.log$|nohup\.out$/.test(path)) return "a log file";
  if (/\.(zip|tar|gz|tgz|bz2|xz|7z|rar|jar|war|whl|egg)$/.test(path)) return "an archive";
  if (/\.(pyc|pyo|class|o|obj|so|dll|dylib|exe)$|__pycache__\//.test(path)) return "a compiled artifact";
  return "generated or cached output";
}
