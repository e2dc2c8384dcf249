import { readRun } from "../report/load-run.ts";
import type { RunStore } from "../store/run-store.ts";
import { HttpError } from "./http-errors.ts";

/**
 * `GET /v1/runs/{id}/report`: the page `gagar report --store` writes, for a run of the service's own
 * store (its `/v1/steps` are recorded there as the steps of its run), read from the open store.
 */
export async function runReportPage(store: RunStore, runId: string): Promise<string> {
  if (!store.getRun(runId))
    throw new HttpError(404, "not-found", `no run "${runId}" in this service's run store`);
  const run = readRun(store, { storeFile: store.file, runId });
  // Vega loads when a report is asked for, not on every start of the CLI (this module is imported by `gagar serve`).
  const { renderRunReport } = await import("../report/run-page.ts");
  return renderRunReport(run);
}
