import { ConfigError } from "../errors.ts";
import { createBwrapBackend } from "./bwrap.ts";
import type { Availability, SandboxBackend } from "./types.ts";
import type { UidRange } from "./uid-pool.ts";
import { createUnsandboxedBackend } from "./unsandboxed.ts";
import { createUnshareBackend } from "./unshare.ts";

export { defaultLimits, defaultOutputCapBytes } from "./limits.ts";

export type BackendName = "auto" | "bwrap" | "unshare" | "unsandboxed";

export const BACKEND_NAMES: readonly BackendName[] = ["auto", "bwrap", "unshare", "unsandboxed"];

export interface SelectOptions {
  /** Required for "unsandboxed": the user explicitly accepted running candidate code without isolation. */
  allowUnsandboxed?: boolean;
  /** Where loud notices go (a weaker backend than bwrap, or no isolation); default stderr. */
  warn?: (message: string) => void;
  /** Host uids for the namespace backends (default 61000–61063). */
  uidRange?: UidRange;
}

const stderrWarn = (message: string) => process.stderr.write(`${message}\n`);

/**
 * Picks the sandbox for a run of gagar. `auto` takes the strongest backend that works on this host (bwrap,
 * then unshare) and says so loudly when it is not bwrap; it never falls back to running unsandboxed.
 * An explicitly named backend that does not work is a ConfigError naming what is missing and the fix.
 */
export async function selectBackend(name: BackendName, opts: SelectOptions = {}): Promise<SandboxBackend> {
  const warn = opts.warn ?? stderrWarn;
  const shared = opts.uidRange ? { uidRange: opts.uidRange } : {};
  switch (name) {
    case "bwrap":
    case "unshare": {
      const backend = name === "bwrap" ? createBwrapBackend(shared) : createUnshareBackend(shared);
      const availability = await backend.check();
      if (!availability.available) {
        throw new ConfigError(
          `sandbox backend "${name}" is not available on this host: ${availability.missing.join("; ")}`,
        );
      }
      if (name === "unshare") warn(weakerNotice("unshare", "explicitly requested", availability));
      return backend;
    }
    case "unsandboxed": {
      if (!opts.allowUnsandboxed) {
        throw new ConfigError(
          'sandbox backend "unsandboxed" runs candidate code with no isolation; pass --allow-unsandboxed to accept that',
        );
      }
      warn(
        "gagar: WARNING: candidate code will run UNSANDBOXED (no isolation at all); every run will repeat this warning",
      );
      return createUnsandboxedBackend({ acknowledgeNoIsolation: true, warn });
    }
    case "auto": {
      const bwrap = createBwrapBackend(shared);
      const bwrapAvailability = await bwrap.check();
      if (bwrapAvailability.available) return bwrap;
      const unshare = createUnshareBackend(shared);
      const unshareAvailability = await unshare.check();
      if (unshareAvailability.available) {
        warn(
          weakerNotice(
            "unshare",
            `bwrap is unavailable (${bwrapAvailability.missing.join("; ")})`,
            unshareAvailability,
          ),
        );
        return unshare;
      }
      throw new ConfigError(
        [
          "no sandbox backend works on this host, and gagar never runs candidate code unsandboxed on its own.",
          `bwrap: ${bwrapAvailability.missing.join("; ")}`,
          `unshare: ${unshareAvailability.missing.join("; ")}`,
          "Fix one of these (apt-get install bubblewrap, run as root), or accept no isolation with --sandbox unsandboxed --allow-unsandboxed.",
        ].join("\n"),
      );
    }
    default:
      throw new ConfigError(
        `unknown sandbox backend "${String(name)}" (expected one of ${BACKEND_NAMES.join(", ")})`,
      );
  }
}

function weakerNotice(name: string, why: string, availability: Availability): string {
  return [
    `gagar: WARNING: using the "${name}" sandbox backend, weaker than bwrap: ${why}.`,
    ...availability.weaknesses.map((w) => `  - ${w}`),
    "  Install bubblewrap (apt-get install bubblewrap) for the recommended sandbox.",
  ].join("\n");
}
