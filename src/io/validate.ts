import type { z } from "zod";
import { InputError, type InputLocation } from "../errors.ts";

/** Parses `value` with `schema`, turning the first zod issue into an InputError naming file, line and field. */
export function parseRecord<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: Omit<InputLocation, "field">,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.map(String).join(".") : undefined;
  throw new InputError({ ...where, field }, issue.message);
}
