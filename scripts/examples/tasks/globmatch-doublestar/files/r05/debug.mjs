import { readFileSync } from "node:fs";
import { filter } from "./src/index.js";

const paths = readFileSync(new URL("./paths.txt", import.meta.url), "utf8").split("\n").filter(Boolean);
for (const pattern of ["src/**/*.js", "**/*.md", "src/**/*.test.js"]) {
  console.log(pattern.padEnd(18), JSON.stringify(filter(paths, pattern)));
}
