import { getEstimator } from "../advantage/estimators.ts";
import type { ConfigChecks } from "../config/load.ts";

/** The names a run's config may give, checked against the registries when the config is loaded. */
export const RUN_CONFIG_CHECKS: ConfigChecks = { estimator: getEstimator };
