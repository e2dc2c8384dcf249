import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { Node } from "web-tree-sitter";
import { loadSyntax } from "../grade/static/syntax.ts";
import { type ProbeAdapter, probeAdapter } from "./adapters.ts";
import { analyseJs } from "./js/analyse.ts";
import { jsSyntax } from "./js/literals.ts";
import { renderJsProbes } from "./js/render.ts";
import { type LiteralSyntax, perturbationsOf, seedOf } from "./perturb.ts";
import { analysePython } from "./python/analyse.ts";
import { pythonSyntax } from "./python/literals.ts";
import { renderPythonProbes } from "./python/render.ts";
import type { ProbeVariant } from "./render-types.ts";
import { selectPerturbations } from "./select.ts";
import { baseProbeId, type ProbeSpec, type TestModule, type TestSite } from "./types.ts";

/**
 * Probes for a task's tests: the seam phase 2 lays over a candidate's workspace. Given the runner and
 * the test modules (hidden and visible, workspace-relative), it returns the probe modules to write
 * beside them (and the JavaScript helper they import), the files the runner's `{tests}` should name,
 * and every probe's identity. The same input gives the same plan, so the observations of every
 * candidate and of the reference line up by probe id. The probe modules write their observations to
 * the file named by GAGAR_PROBE_CHANNEL (channel.ts reads it).
 */
export interface ProbePlanInput {
  runner: string;
  /** Test modules by workspace-relative path. */
  tests: ReadonlyMap<string, string>;
  /** Perturbed probes per test, besides its base probe. */
  maxProbesPerTest?: number;
  /**
   * The tests whose inputs are nudged (by test id); the others get their base probe only. A fix fitted
   * to the tests is fitted to the ones it had to make pass: the sandboxed stage focuses on the task's
   * failToPass and keeps the cost of the others to one run of each.
   */
  focus?: (testId: string) => boolean;
}

export interface ProbePlan {
  runner: string;
  /** Probe modules and helpers, by workspace-relative path. */
  files: { path: string; content: string }[];
  /** The probe modules, sorted: what the runner is asked to run. */
  testFiles: string[];
  probes: ProbeSpec[];
  /** Test modules that gave no probes, and why. */
  skipped: { file: string; reason: string }[];
}

export const DEFAULT_PROBES_PER_TEST = 16;
export const PROBE_CHANNEL_ENV = "GAGAR_PROBE_CHANNEL";
/** The JavaScript helper's file name, written into each directory holding a probe module. */
export const JS_HELPER_NAME = "__gagar_probe__.cjs";

const PYTHON_HELPER = readFileSync(new URL("./python/probe_helper.py", import.meta.url), "utf8");
const JS_HELPER = readFileSync(new URL("./js/probe-helper.cjs", import.meta.url), "utf8");

export async function planProbes(input: ProbePlanInput): Promise<ProbePlan> {
  const adapter = probeAdapter(input.runner);
  const plan: ProbePlan = { runner: input.runner, files: [], testFiles: [], probes: [], skipped: [] };
  if (!adapter) {
    plan.skipped = [...input.tests.keys()].map((file) => ({
      file,
      reason: `runner "${input.runner}" has no probe adapter`,
    }));
    return plan;
  }
  const syntax = await loadSyntax();
  const max = input.maxProbesPerTest ?? DEFAULT_PROBES_PER_TEST;
  const helperDirs = new Set<string>();
  const seenTests = new Map<string, number>();
  for (const file of [...input.tests.keys()].sort()) {
    const text = input.tests.get(file)!;
    const language = languageOf(adapter, file);
    if (!language) {
      plan.skipped.push({ file, reason: `not a ${adapter.language} test module` });
      continue;
    }
    let module: TestModule;
    try {
      module = syntax.withTree(language, text, (root: Node) =>
        adapter.language === "python"
          ? analysePython(root, file, text)
          : analyseJs(root, file, text, adapter),
      );
    } catch (e) {
      plan.skipped.push({ file, reason: `could not be analysed: ${(e as Error).message}` });
      continue;
    }
    if (module.tests.length === 0) {
      plan.skipped.push({ file, reason: "declares no test the probes can copy" });
      continue;
    }
    const literalSyntax: LiteralSyntax = adapter.language === "python" ? pythonSyntax : jsSyntax;
    const variants = variantsOf(module, literalSyntax, max, seenTests, input.focus);
    const path = adapter.probeFileOf(file);
    const content =
      adapter.language === "python"
        ? renderPythonProbes(module, variants, PYTHON_HELPER)
        : renderJsProbes(module, variants, `./${JS_HELPER_NAME}`);
    plan.files.push({ path, content });
    plan.testFiles.push(path);
    for (const vs of variants.values()) plan.probes.push(...vs.map((v) => v.probe));
    if (adapter.language === "javascript") helperDirs.add(posix.dirname(path));
  }
  for (const dir of [...helperDirs].sort())
    plan.files.push({ path: dir === "." ? JS_HELPER_NAME : `${dir}/${JS_HELPER_NAME}`, content: JS_HELPER });
  plan.testFiles.sort();
  return plan;
}

function languageOf(
  adapter: ProbeAdapter,
  file: string,
): "python" | "javascript" | "typescript" | "tsx" | null {
  if (adapter.language === "python") return file.endsWith(".py") ? "python" : null;
  if (/\.[cm]?jsx?$/.test(file)) return "javascript";
  if (/\.[cm]?ts$/.test(file)) return "typescript";
  if (file.endsWith(".tsx")) return "tsx";
  return null;
}

/** Each test's base probe and its chosen perturbations. */
function variantsOf(
  module: TestModule,
  syntax: LiteralSyntax,
  max: number,
  seenTests: Map<string, number>,
  focus: ((testId: string) => boolean) | undefined,
): Map<TestSite, ProbeVariant[]> {
  const avoid = new Set(module.text);
  const out = new Map<TestSite, ProbeVariant[]>();
  for (const declared of module.tests) {
    // Two declarations with one id (a repeated title, a test declared in a loop) stay apart: `~2`, `~3`…
    const n = (seenTests.get(declared.id) ?? 0) + 1;
    seenTests.set(declared.id, n);
    const site = n === 1 ? declared : { ...declared, id: `${declared.id}~${n}` };
    const base: ProbeVariant = {
      probe: {
        id: baseProbeId(site.id),
        testId: site.id,
        file: module.file,
        line: site.line,
        perturbation: null,
      },
      literal: null,
      perturbation: null,
    };
    if (focus && !focus(site.id)) {
      out.set(declared, [base]);
      continue;
    }
    const perLiteral = site.literals.map((literal) =>
      perturbationsOf(literal, {
        text: module.text,
        syntax,
        avoid,
        seed: seedOf(`${site.id}\0${literal.index}`),
      }),
    );
    const chosen = selectPerturbations(perLiteral, max).sort(
      (a, b) =>
        a.literal - b.literal || perLiteral[a.literal]!.indexOf(a) - perLiteral[b.literal]!.indexOf(b),
    );
    const variants = [base];
    for (const perturbation of chosen) {
      const literal = site.literals[perturbation.literal]!;
      const before = module.text.slice(literal.span.start, literal.span.end);
      variants.push({
        probe: {
          id: `${site.id}#${perturbation.id}`,
          testId: site.id,
          file: module.file,
          line: literal.line,
          perturbation: { ...perturbation, before },
        },
        literal,
        perturbation,
      });
    }
    out.set(declared, variants);
  }
  return out;
}
