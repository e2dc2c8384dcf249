/**
 * Prints the functions over 100 lines and the files over 400 lines of src/ (issue 20's limits; the
 * test test/code-sizes.test.ts fails on them):
 *   npx tsx scripts/code-sizes.ts
 */
import { resolve } from "node:path";
import { codeSizes, describeSizes } from "../test/support/code-sizes.ts";

process.stdout.write(`${describeSizes(codeSizes(resolve(import.meta.dirname, "..")))}\n`);
