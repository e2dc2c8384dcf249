import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed package, where the example pack lives (commands that use it run from any folder). */
const packageRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The bundled example pack: six small repositories with hidden tests, and their recorded rollouts. */
export const EXAMPLE_PACK = {
  tasks: join(packageRoot, "examples/tasks"),
  rollouts: join(packageRoot, "examples/rollouts"),
};
