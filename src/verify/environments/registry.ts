import type { EnvironmentSpec } from "../../contracts/task-spec.ts";
import { hostEnvironment } from "./host.ts";
import { ociEnvironment } from "./oci.ts";
import { rootfsEnvironment } from "./rootfs.ts";
import { setupEnvironment } from "./setup.ts";
import type { Environment, EnvironmentContext, PreparedEnvironment } from "./types.ts";

/** Every environment kind, by the `kind` a task.json gives. */
export const ENVIRONMENTS: readonly Environment[] = [
  hostEnvironment,
  setupEnvironment,
  rootfsEnvironment,
  ociEnvironment,
] as Environment[];

export function environmentOf(kind: EnvironmentSpec["kind"]): Environment {
  const found = ENVIRONMENTS.find((e) => e.kind === kind);
  if (!found) throw new Error(`unknown environment kind "${kind}"`);
  return found;
}

/** Builds (or takes from the cache) the environment `spec` describes. */
export function prepareEnvironment(
  spec: EnvironmentSpec,
  context: EnvironmentContext,
): Promise<PreparedEnvironment> {
  return (environmentOf(spec.kind) as Environment<typeof spec.kind>).prepare(spec as never, context);
}
