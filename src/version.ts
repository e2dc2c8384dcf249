import { readFileSync } from "node:fs";

/** gagar's version, from package.json (one place, for `--version`, the service and its OpenAPI). */
export const GAGAR_VERSION: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;
