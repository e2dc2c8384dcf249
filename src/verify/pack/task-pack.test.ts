import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../errors.ts";
import { loadTaskPack, loadTaskPacks } from "./task-pack.ts";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/verify/tasks", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gagar-task-pack-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let copies = 0;
/** A writable copy of the python fixture with task.json edited by `edit`. */
function variant(edit: (spec: Record<string, unknown>) => void, name = "calc-div-zero"): string {
  const dir = join(scratch, `v${copies++}`, name);
  cpSync(join(FIXTURES, "calc-div-zero"), dir, { recursive: true });
  const file = join(dir, "task.json");
  const spec = JSON.parse(readFileSync(file, "utf8"));
  edit(spec);
  writeFileSync(file, JSON.stringify(spec));
  return dir;
}

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

describe("loadTaskPack", () => {
  it("reads the schemaVersion 1 form (no runner, no environment) as it always ran", () => {
    // test/fixtures/verify/tasks keep the old form on purpose.
    const py = loadTaskPack(join(FIXTURES, "calc-div-zero"));
    const js = loadTaskPack(join(FIXTURES, "stats-mean"));
    expect(JSON.parse(readFileSync(join(FIXTURES, "calc-div-zero", "task.json"), "utf8")).schemaVersion).toBe(
      1,
    );
    expect([py.spec.test.runner, py.spec.environment]).toEqual(["pytest", { kind: "host" }]);
    expect([js.spec.test.runner, js.runner.name, js.spec.environment]).toEqual([
      "node:test",
      "node:test",
      { kind: "host" },
    ]);
    expect(py.command).toEqual(py.spec.test.command);
  });

  it("reads schemaVersion 2 with a runner, its default command and an environment", () => {
    const dir = variant((s) => {
      s.schemaVersion = 2;
      s.test = { runner: "pytest" };
      s.environment = { kind: "rootfs", path: "root.tar" };
    });
    const pack = loadTaskPack(dir);
    expect(pack.command).toContain("--junitxml={junit}");
    expect(pack.spec.environment).toEqual({ kind: "rootfs", path: "root.tar" });
    const unknown = errorOf(() =>
      loadTaskPack(variant((s) => Object.assign(s, { schemaVersion: 2, test: { runner: "tap" } }))),
    );
    expect(unknown.location.field).toBe("test.runner");
    const junit = errorOf(() =>
      loadTaskPack(
        variant((s) =>
          Object.assign(s, { schemaVersion: 2, test: { runner: "junit", command: ["x", "{junit}"] } }),
        ),
      ),
    );
    expect(junit.location.field).toBe("test.canaryCommand");
  });

  it("reads an oci environment's image reference, and names the field of a bad one", () => {
    const v2 = (environment: unknown) =>
      variant((s) => Object.assign(s, { schemaVersion: 2, test: { runner: "pytest" }, environment }));
    const image = "docker://docker.io/library/python:3.12-slim";
    expect(loadTaskPack(v2({ kind: "oci", image })).spec.environment).toEqual({ kind: "oci", image });
    expect(
      loadTaskPack(
        v2({ kind: "setup", commands: [["true"]], base: { kind: "oci", image: "oci-archive:i.tar" } }),
      ).spec.environment,
    ).toMatchObject({ base: { kind: "oci", image: "oci-archive:i.tar" } });
    for (const [environment, field, message] of [
      [{ kind: "oci", image: "python:3.12" }, "environment.image", /has no skopeo transport gagar takes/],
      [{ kind: "oci", image: "docker://Python" }, "environment.image", /not a valid registry reference/],
      [{ kind: "oci", image: "docker://me:pw@r.example/x" }, "environment.image", /holds credentials/],
      [{ kind: "oci", image: "oci-archive:" }, "environment.image", /names no file/],
      [{ kind: "oci" }, "environment", /names its image: "image" .* or "path"/],
      [{ kind: "oci", path: "layout", image }, "environment.image", /"path" or "image", not both/],
      [{ kind: "oci", image, ref: "latest" }, "environment.ref", /"ref" goes with "path"/],
      [
        { kind: "setup", commands: [["true"]], base: { kind: "oci", image: "docker:x" } },
        "environment.base.image",
        /docker:\/\/\[REGISTRY\/\]NAME/,
      ],
    ] as const) {
      const error = errorOf(() => loadTaskPack(v2(environment)));
      expect(error.location.field, JSON.stringify(environment)).toBe(field);
      expect(error.message).toMatch(/task\.json \(field /);
      expect(error.detail).toMatch(message);
      expect(error.message).not.toContain("pw@");
    }
  });

  it("loads the python fixture with its hidden tests and reference patch", () => {
    const pack = loadTaskPack(join(FIXTURES, "calc-div-zero"));
    expect(pack.spec.id).toBe("calc-div-zero");
    expect(pack.hiddenTests).toEqual(["tests/test_calc.py", "tests/test_extra.py"]);
    expect(pack.referencePatch).toContain("raise ValueError");
    expect(pack.repoDir).toBe(join(FIXTURES, "calc-div-zero", "repo"));
  });

  it("loads every task of a folder", () => {
    expect([...loadTaskPacks(FIXTURES).keys()]).toEqual(["calc-div-zero", "stats-mean"]);
    expect([...loadTaskPacks(join(FIXTURES, "stats-mean")).keys()]).toEqual(["stats-mean"]);
  });

  it("names the file and field of a schema error", () => {
    const dir = variant((s) => {
      s.timeoutSec = -1;
    });
    const error = errorOf(() => loadTaskPack(dir));
    expect(error.location).toEqual({ file: join(dir, "task.json"), field: "timeoutSec" });
  });

  it("requires the id to match the folder", () => {
    const error = errorOf(() => loadTaskPack(variant(() => {}, "other-name")));
    expect(error.location.field).toBe("id");
  });

  it("requires {junit} and a standalone {tests}", () => {
    const noJunit = errorOf(() =>
      loadTaskPack(variant((s) => ((s.test as { command: string[] }).command = ["pytest"]))),
    );
    expect(noJunit.location.field).toBe("test.command");
    const glued = errorOf(() =>
      loadTaskPack(
        variant(
          (s) => ((s.test as { command: string[] }).command = ["pytest", "--junitxml={junit}", "x{tests}"]),
        ),
      ),
    );
    expect(glued.location.field).toBe("test.command.2");
    const js = errorOf(() =>
      loadTaskPack(
        variant((s) => {
          s.language = "javascript";
          (s.test as { command: string[] }).command = [
            "node",
            "--test",
            "--test-reporter-destination={junit}",
          ];
        }),
      ),
    );
    expect(js.message).toContain("{tests}");
  });

  it("requires test ids to name existing files, once each", () => {
    const missing = errorOf(() =>
      loadTaskPack(variant((s) => ((s.failToPass as string[])[1] = "tests/test_nope.py::test_x"))),
    );
    expect(missing.location.field).toBe("failToPass.1");
    const twice = errorOf(() =>
      loadTaskPack(variant((s) => ((s.passToPass as string[])[0] = "tests/test_calc.py::test_div_by_zero"))),
    );
    expect(twice.message).toContain("already listed at failToPass.0");
    const unsafe = errorOf(() =>
      loadTaskPack(variant((s) => ((s.failToPass as string[])[0] = "../x.py::t"))),
    );
    expect(unsafe.message).toContain("unsafe path");
  });

  it("refuses symlinks among the hidden tests and a missing repo/", () => {
    const dir = variant(() => {});
    symlinkSync("/etc/passwd", join(dir, "tests", "tests", "passwd.py"));
    expect(errorOf(() => loadTaskPack(dir)).message).toContain("regular files");
    unlinkSync(join(dir, "tests", "tests", "passwd.py"));
    rmSync(join(dir, "repo"), { recursive: true });
    expect(errorOf(() => loadTaskPack(dir)).location.file).toBe(join(dir, "repo"));
  });

  it("reports a missing or broken task.json", () => {
    expect(errorOf(() => loadTaskPack(scratch)).detail).toBe("no task.json in the task folder");
    const dir = variant(() => {});
    writeFileSync(join(dir, "task.json"), "{");
    expect(errorOf(() => loadTaskPack(dir)).detail).toMatch(/^not valid JSON/);
  });
});
