import { posix } from "node:path";

/**
 * What probe generation needs to know about each test runner gagar supports, by the runner's name in
 * task.json. Adapters declare what their framework offers (the functions that declare tests and
 * suites, parametrized tables, `expect`) rather than being recognised by name elsewhere.
 */
export interface ProbeAdapter {
  readonly runner: string;
  readonly language: "python" | "javascript";
  /** JavaScript: the functions declaring tests (`it`, `test`…) and suites (`describe`…). */
  readonly testFunctions: ReadonlySet<string>;
  readonly suiteFunctions: ReadonlySet<string>;
  /** Whether `test.each(table)(title, fn)` declares parametrized tests. */
  readonly eachTables: boolean;
  /** The probe module generated from test module `file`, beside it (its imports resolve the same way). */
  probeFileOf(file: string): string;
}

const none: ReadonlySet<string> = new Set();

function pythonProbeFile(file: string): string {
  const dir = posix.dirname(file);
  const base = posix.basename(file, ".py");
  const name = base.endsWith("_test") ? `${base.slice(0, -5)}_gagar_probe_test.py` : `${base}_gagar_probe.py`;
  const probe = base.startsWith("test") || base.endsWith("_test") ? name : `test_gagar_probe_${base}.py`;
  return dir === "." ? probe : `${dir}/${probe}`;
}

function jsProbeFile(file: string): string {
  const m = /^(.*?)((?:[._-](?:test|spec))?\.[cm]?[jt]sx?)$/.exec(file);
  return m ? `${m[1]}.gagar-probe${m[2]}` : `${file}.gagar-probe.js`;
}

const js = (runner: string, tests: string[], suites: string[], eachTables: boolean): ProbeAdapter => ({
  runner,
  language: "javascript",
  testFunctions: new Set(tests),
  suiteFunctions: new Set(suites),
  eachTables,
  probeFileOf: jsProbeFile,
});

export const PROBE_ADAPTERS: ReadonlyMap<string, ProbeAdapter> = new Map(
  [
    {
      runner: "pytest",
      language: "python",
      testFunctions: none,
      suiteFunctions: none,
      eachTables: false,
      probeFileOf: pythonProbeFile,
    } satisfies ProbeAdapter,
    js("node:test", ["test", "it"], ["describe", "suite"], false),
    js("mocha", ["it", "specify", "test"], ["describe", "context", "suite"], false),
    js("jest", ["it", "test"], ["describe"], true),
    js("vitest", ["it", "test"], ["describe", "suite"], true),
  ].map((a) => [a.runner, a]),
);

/** The adapter of `runner`; runners without one (junit: any command) get no probes. */
export function probeAdapter(runner: string): ProbeAdapter | null {
  return PROBE_ADAPTERS.get(runner) ?? null;
}
