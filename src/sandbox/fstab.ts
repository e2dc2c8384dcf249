/**
 * Mount tables for `mount -a -T FILE`, which performs a whole list of mounts in one process: a shell
 * loop of `mount` commands costs an exec each, which is the bulk of a run's start cost.
 */
export interface FstabEntry {
  source: string;
  target: string;
  type: string;
  options: string[];
}

/** fstab(5) fields are whitespace-separated; libmount decodes these octal escapes. */
function escapeField(field: string): string {
  if (field === "" || field.includes("\0")) throw new Error(`invalid fstab field ${JSON.stringify(field)}`);
  return field.replace(/[\\ \t\n#]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

export function formatFstab(entries: FstabEntry[]): string {
  return entries
    .map((e) => [e.source, e.target, e.type, e.options.join(",")].map(escapeField).join(" ").concat(" 0 0\n"))
    .join("");
}

/** A bind mount of a host path; `readOnly` adds the read-only remount that libmount does for `bind,ro`. */
export function bindEntry(
  source: string,
  target: string,
  readOnly: boolean,
  extra: string[] = [],
  recursive = false,
): FstabEntry {
  return {
    source,
    target,
    type: "none",
    options: [recursive ? "rbind" : "bind", ...(readOnly ? ["ro"] : []), "nosuid", "nodev", ...extra],
  };
}
