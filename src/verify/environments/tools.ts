import { accessSync, constants } from "node:fs";

/** A system program by name, looked up in the system directories only (never PATH), or undefined. */
export function findToolPath(name: string): string | undefined {
  for (const dir of ["/usr/bin", "/usr/sbin", "/bin", "/sbin"]) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return undefined;
}
