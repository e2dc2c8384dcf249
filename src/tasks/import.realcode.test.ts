/**
 * `gagar tasks import` on a real bug-fix commit whose tests are parametrised with the time:
 * marshmallow-code/marshmallow 2e0a4fcc ("fix: unhandled OSError and OverflowErrors from
 * utils.from_timestamp"), whose tests/test_deserialization.py parametrises
 * `test_invalid_datetime_deserialization` with `dt.datetime.now().strftime(...)`, so two runs name those
 * tests differently. The repository comes from GAGAR_REALCODE (a git bundle); without it the test skips.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutRealcode, realcodeSkip } from "../../test/support/realcode.ts";
import { selectBackend } from "../sandbox/select.ts";
import { loadTaskPack } from "../verify/pack/task-pack.ts";
import { Verifier } from "../verify/verifier.ts";
import { importSweBench } from "./import.ts";

const SKIP = realcodeSkip(["marshmallow-code/marshmallow"]);
const FIX = "2e0a4fcc832e6dfe10a96b539bb6a79378dbcc60";
/** The repository's src/ layout, and its pytest options left out (they need plugins Debian lacks). */
const COMMAND =
  "python3 -B -m pytest -q -p no:cacheprovider -o junit_family=xunit1 -o addopts= -o pythonpath=src --rootdir=. --junitxml={junit} {tests}";

const root = mkdtempSync(join(tmpdir(), "gagar-import-realcode-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(SKIP)("importing a real task whose test ids change from run to run", () => {
  it("derives only ids that appear again, and says which it left out", async () => {
    const repo = join(root, "repos", "marshmallow-code", "marshmallow");
    mkdirSync(join(repo, ".."), { recursive: true });
    checkoutRealcode("marshmallow-code/marshmallow", FIX, repo);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
    const base = git("rev-parse", `${FIX}^`).trim();
    const file = join(root, "instances.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({
        instance_id: "marshmallow-2e0a4fcc",
        repo: "marshmallow-code/marshmallow",
        base_commit: base,
        patch: git("diff", base, FIX, "--", "src"),
        test_patch: git("diff", base, FIX, "--", "tests"),
        problem_statement: "fix: unhandled OSError and OverflowErrors from utils.from_timestamp",
        test_command: COMMAND,
      })}\n`,
    );
    const out = join(root, "tasks");
    const verifier = new Verifier({ sandbox: await selectBackend("bwrap") });
    try {
      const report = await importSweBench(file, {
        reposDir: join(root, "repos"),
        outDir: out,
        verifier: async () => verifier,
      });
      expect(report.failed).toEqual([]);
      const pack = loadTaskPack(join(out, "marshmallow-2e0a4fcc"));
      const ids = [...pack.spec.failToPass, ...pack.spec.passToPass];
      expect(
        ids.filter(
          (id) => id.includes("test_invalid_datetime_deserialization[") && /\d\d:\d\d:\d\d/.test(id),
        ),
      ).toEqual([]);
      expect(pack.spec.failToPass).toEqual([
        "tests/test_deserialization.py::TestFieldDeserialization::test_oversized_timestamp_field_deserialization[MockDateTimeOSError-timestamp]",
        "tests/test_deserialization.py::TestFieldDeserialization::test_oversized_timestamp_field_deserialization[MockDateTimeOSError-timestamp_ms]",
        "tests/test_deserialization.py::TestFieldDeserialization::test_oversized_timestamp_field_deserialization[MockDateTimeOverflowError-timestamp]",
        "tests/test_deserialization.py::TestFieldDeserialization::test_oversized_timestamp_field_deserialization[MockDateTimeOverflowError-timestamp_ms]",
      ]);
      const check = JSON.parse(readFileSync(join(pack.dir, "check.json"), "utf8"));
      expect(check.valid).toBe(true);
      expect(check.notes[0]).toMatch(
        /^\d+ test ids that change from run to run .* are left out of the lists: tests\/test_deserialization\.py::TestFieldDeserialization::test_invalid_datetime_deserialization\[/,
      );
      // Verified later, in another run: every listed id is reported again, and the reference passes.
      const later = await verifier.verify(pack, pack.referencePatch!);
      expect(later.reason, later.detail).toBe("passed");
    } finally {
      await verifier.close();
    }
  }, 600_000);
});
