import { InvalidArgumentError } from "commander";
import { maxSandboxJobs, SANDBOX_JOBS_PER_CPU } from "../concurrency/sandbox-jobs.ts";
import { LIMITS, type LimitName } from "../config/limits.ts";

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
    if (raw.trim() === "" || !Number.isInteger(value) || value < min) {
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got "${raw}"`);
    }
    return value;
  };
}

/** Commander argument parser for a whole number in [min, max]; `why` explains the upper bound. */
export function integerIn(min: number, max: number, why = "") {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}${why}, got "${raw}"`);
    }
    return value;
  };
}

/** A whole number from `min` to the named limit of limits.ts (shared with the config schema). */
export function integerWithin(min: number, limit: LimitName) {
  const { max, why } = LIMITS[limit];
  return integerIn(min, max, ` (${why})`);
}

/** A TCP port to listen on; 0 asks the system for a free one. */
export const portNumber = integerIn(0, 65_535);

/** Parallel sandboxes: at least 1, at most SANDBOX_JOBS_PER_CPU per CPU of this host (sandbox-jobs.ts). */
export function sandboxJobs() {
  const cpus = maxSandboxJobs() / SANDBOX_JOBS_PER_CPU;
  return integerIn(
    1,
    maxSandboxJobs(),
    ` (${SANDBOX_JOBS_PER_CPU} per CPU; this host has ${cpus} CPU${cpus === 1 ? "" : "s"})`,
  );
}

/** An http(s) URL, e.g. the service a worker fetches task packs from. */
export function serviceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgumentError(`expected an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidArgumentError(`expected an http:// or https:// URL, got "${raw}"`);
  return raw;
}
