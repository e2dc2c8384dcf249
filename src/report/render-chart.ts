import { logger, parse, Error as VegaErrorLevel, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { InvariantError } from "../errors.ts";

/**
 * Renders a Vega-Lite spec to a standalone SVG string in Node: Vega-Lite compiles it to a Vega
 * spec, a headless Vega view (no renderer, no canvas) lays it out and serializes the scenegraph.
 * The SVG needs nothing at view time — no script, no font or data request — so a report that
 * inlines it works opened from disk.
 *
 * Vega's warnings (e.g. a null value left out of a line) are not failures of the report, so only
 * errors are logged; an error in our own spec surfaces as an InvariantError naming the chart.
 */
export async function renderSvg(spec: TopLevelSpec, name: string): Promise<string> {
  const quiet = logger(VegaErrorLevel);
  let view: View | undefined;
  try {
    const compiled = compile(spec, { logger: quiet }).spec;
    view = new View(parse(compiled), { renderer: "none", logLevel: VegaErrorLevel });
    return await view.toSVG();
  } catch (e) {
    throw new InvariantError(`cannot render chart "${name}": ${(e as Error).message}`);
  } finally {
    view?.finalize();
  }
}
