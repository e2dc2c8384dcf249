import { InvalidArgumentError } from "commander";

/** Commander argument parser for a finite number in [min, max) (or [min, max] when `inclusive`). */
export function numberIn(min: number, max: number, inclusive = false) {
  return (raw: string): number => {
    const value = Number(raw);
    const ok =
      raw.trim() !== "" && Number.isFinite(value) && value >= min && (inclusive ? value <= max : value < max);
    if (!ok)
      throw new InvalidArgumentError(
        `expected a number in [${min}, ${max}${inclusive ? "]" : ")"}, got "${raw}"`,
      );
    return value;
  };
}

/** Commander argument parser for a whole number ≥ min. */
export function integerAtLeast(min: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) {
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got "${raw}"`);
    }
    return value;
  };
}
