import { z } from "zod";

/** How bad a finding is. `critical` = tampering, forgery or hard-coded outputs: never a good candidate. */
export const Severity = z.enum(["critical", "major", "minor"]);
export type Severity = z.infer<typeof Severity>;

/** One piece of evidence about a candidate, with where it was seen. */
export const Finding = z.looseObject({
  kind: z.string().min(1),
  severity: Severity,
  file: z.string().optional(),
  line: z.number().int().nonnegative().optional(),
  message: z.string(),
});
export type Finding = z.infer<typeof Finding>;
