/**
 * `npm run bench`: every benchmark prints figures measured side by side in this one run (ratios,
 * not absolute timings, are what the goals are about — the machines are shared and noisy).
 */
const suites: [string, () => Promise<{ run: () => Promise<void> }>][] = [
  ["advantages", () => import("./advantages.bench.ts")],
  ["sampling", () => import("./sampling.bench.ts")],
  ["grade", () => import("./grade.bench.ts")],
  ["grader-tokens", () => import("./grader-tokens.bench.ts")],
  ["sandbox", () => import("./sandbox.bench.ts")],
  ["verify", () => import("./verify.bench.ts")],
  ["probe", () => import("./probe.bench.ts")],
  ["environment", () => import("./environment.bench.ts")],
  ["service", () => import("./service.bench.ts")],
  ["report", () => import("./report.bench.ts")],
];

const only = process.argv.slice(2);
for (const [name, load] of suites) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n# ${name}`);
  const { run } = await load();
  await run();
}
