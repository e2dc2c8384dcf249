import type { Perturbation, ProbeSpec, TestLiteral } from "./types.ts";

/** One probe of a test as a renderer writes it: the probe, and the literal it perturbs (none for the base). */
export interface ProbeVariant {
  probe: ProbeSpec;
  literal: TestLiteral | null;
  perturbation: Perturbation | null;
}
