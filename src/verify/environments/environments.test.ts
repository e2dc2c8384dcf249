import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvironmentSpec } from "../../contracts/task-spec.ts";
import { type EnvironmentFixture, environmentContract } from "./contract.test-suite.ts";
import { ENVIRONMENTS } from "./registry.ts";

const CALC = "from vendor.helper import ZERO_MESSAGE\n\n\ndef div(a, b):\n    return a / b\n";
const FIXED =
  "from vendor.helper import ZERO_MESSAGE\n\n\ndef div(a, b):\n    if b == 0:\n        raise ValueError(ZERO_MESSAGE)\n    return a / b\n";
const TESTS = {
  "tests/test_calc.py":
    "import pytest\n\nfrom calc import div\n\n\ndef test_divides():\n    assert div(6, 3) == 2\n\n\ndef test_rejects_zero():\n    with pytest.raises(ValueError, match='division by zero'):\n        div(1, 0)\n",
};
const IDS = {
  failToPass: ["tests/test_calc.py::test_rejects_zero"],
  passToPass: ["tests/test_calc.py::test_divides"],
};
/** A candidate whose code, while tested, overwrites what the environment provides. */
const TAMPER = `import os\n\nfor path in ("vendor/helper.py", "/usr/lib/gagar-env-tamper"):\n    try:\n        with open(path, "w") as f:\n            f.write("raise SystemExit(3)\\n")\n    except OSError:\n        pass\n\n${FIXED}`;

/** The host's toolchain, with the helper module committed in the repository. */
const HOST: EnvironmentFixture = {
  environment: { kind: "host" },
  runner: "pytest",
  repo: {
    "calc.py": CALC,
    "vendor/__init__.py": "",
    "vendor/helper.py": "ZERO_MESSAGE = 'division by zero'\n",
  },
  tests: TESTS,
  ...IDS,
  fix: { "calc.py": FIXED },
  tamper: { "calc.py": TAMPER },
};

/** A set-up command writes the helper module (no network needed here; the network tests install from registries). */
const SETUP: EnvironmentFixture = {
  environment: {
    kind: "setup",
    commands: [
      [
        "python3",
        "-c",
        "import os; os.makedirs('vendor', exist_ok=True); open('vendor/__init__.py', 'w').close(); open('vendor/helper.py', 'w').write(\"ZERO_MESSAGE = 'division by zero'\\n\")",
      ],
    ],
  },
  runner: "pytest",
  repo: { "calc.py": CALC },
  tests: TESTS,
  ...IDS,
  fix: { "calc.py": FIXED },
  tamper: { "calc.py": TAMPER },
};

/**
 * A root filesystem directory. Hermetically, it is assembled from the host's own /usr and /etc (bound
 * read-only into a folder of its own), which exercises everything but a different toolchain; the
 * network tests use a Debian trixie root built with mmdebstrap.
 */
let mounted: string[] = [];
const ROOTFS: EnvironmentFixture = {
  ...HOST,
  environment: { kind: "rootfs", path: "(set in before)" },
  before: (scratch) => {
    const root = join(scratch, "rootfs");
    for (const dir of ["usr", "etc"]) {
      mkdirSync(join(root, dir), { recursive: true });
      execFileSync("mount", ["--bind", "-o", "ro", `/${dir}`, join(root, dir)]);
      mounted.push(join(root, dir));
    }
    for (const [name, target] of [
      ["bin", "usr/bin"],
      ["lib", "usr/lib"],
      ["lib64", "usr/lib64"],
      ["sbin", "usr/sbin"],
    ])
      symlinkSync(target!, join(root, name!));
    return { kind: "rootfs", path: root };
  },
  after: () => {
    for (const dir of mounted) execFileSync("umount", ["-l", dir]);
    mounted = [];
  },
};

describe("environment registry", () => {
  it("has one implementation for every kind a task.json may name", () => {
    const kinds = EnvironmentSpec.options.flatMap((o) =>
      "options" in o ? o.options.map((x) => x.shape.kind.value) : [o.shape.kind.value],
    );
    expect(ENVIRONMENTS.map((e) => e.kind).sort()).toEqual([...kinds].sort());
  });
});

environmentContract("host", () => HOST);
environmentContract("setup (commands without network)", () => SETUP);
environmentContract(
  "rootfs (a directory assembled from the host's /usr)",
  () => ROOTFS,
  process.getuid?.() === 0 ? undefined : "bind mounts need root",
);
