// Reproduces "compare() sorts pre-releases as strings".
import { compare, max, sort } from "../src/index.js";

const checks = [
  [compare("1.0.0-alpha.10", "1.0.0-alpha.2"), 1],
  [sort(["2.0.0-beta.10", "2.0.0-beta.9", "2.0.0-beta.11"]).join(" "), "2.0.0-beta.9 2.0.0-beta.10 2.0.0-beta.11"],
  [max(["2.0.0-beta.9", "2.0.0-beta.10"]), "2.0.0-beta.10"],
];

let failed = 0;
for (const [got, want] of checks) {
  const ok = got === want;
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}
process.exit(failed ? 1 : 0);
