/**
 * Environments with a toolchain other than the host's, built here from the Debian mirror (network-
 * gated: GAGAR_TEST_NETWORK=1, which .ci/run sets). One Debian trixie root made with mmdebstrap
 * (python3 3.13 and pytest, Debian's nodejs and mocha; the host has Python 3.11) is used
 * - as a `rootfs` tarball;
 * - as an `oci` image layout made from it with umoci;
 * - as an `oci` `docker save` archive made from that layout with skopeo;
 * - as an `oci` `image` reference (`oci-archive:` of that layout) that gagar copies with skopeo into
 *   its cache before unpacking it (what a `docker://` pull does, without a registry).
 * Each runs the environment contract; its probe test asserts Python ≥ 3.13, which fails on the host.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EnvironmentFixture } from "../src/verify/environments/contract.test-suite.ts";
import { environmentContract } from "../src/verify/environments/contract.test-suite.ts";
import { debianRootfs, NETWORK_SKIP } from "./support/debian-rootfs.ts";

const CALC = "def div(a, b):\n    return a / b\n";
const FIXED =
  'def div(a, b):\n    if b == 0:\n        raise ValueError("division by zero")\n    return a / b\n';

function fixture(environment: (root: string) => Promise<Record<string, unknown>>): EnvironmentFixture {
  return {
    environment: {},
    before: environment,
    runner: "pytest",
    repo: { "calc.py": CALC },
    tests: {
      "tests/test_calc.py": [
        "import sys",
        "",
        "import pytest",
        "",
        "from calc import div",
        "",
        "",
        "def test_toolchain_is_the_environments():",
        "    assert sys.version_info >= (3, 13), sys.version",
        "",
        "",
        "def test_divides():",
        "    assert div(6, 3) == 2",
        "",
        "",
        "def test_rejects_zero():",
        "    with pytest.raises(ValueError):",
        "        div(1, 0)",
        "",
      ].join("\n"),
    },
    failToPass: ["tests/test_calc.py::test_rejects_zero"],
    passToPass: [
      "tests/test_calc.py::test_divides",
      "tests/test_calc.py::test_toolchain_is_the_environments",
    ],
    fix: { "calc.py": FIXED },
    tamper: {
      "calc.py": `import os\n\ntry:\n    open("/usr/lib/python3/gagar-tamper.py", "w").write("x")\nexcept OSError:\n    pass\n\n\n${FIXED}`,
    },
    timeoutSec: 120,
  };
}

/** An OCI layout holding the root as one layer (umoci init/new/unpack/repack). */
function ociLayout(tarball: string, scratch: string): string {
  const layout = join(scratch, "layout");
  const bundle = join(scratch, "bundle");
  execFileSync("umoci", ["init", "--layout", layout]);
  execFileSync("umoci", ["new", "--image", `${layout}:trixie`]);
  execFileSync("umoci", ["unpack", "--image", `${layout}:trixie`, bundle]);
  execFileSync("tar", ["-x", "-f", tarball, "-C", join(bundle, "rootfs"), "--exclude=./dev/*"]);
  execFileSync("umoci", ["repack", "--image", `${layout}:trixie`, bundle]);
  return layout;
}

environmentContract(
  "rootfs (a Debian trixie tarball made with mmdebstrap)",
  () => fixture(async () => ({ kind: "rootfs", path: await debianRootfs() })),
  NETWORK_SKIP,
);
environmentContract(
  "oci (an image layout made from that root with umoci)",
  () =>
    fixture(async (scratch) => ({
      kind: "oci",
      path: ociLayout(await debianRootfs(), scratch),
      ref: "trixie",
    })),
  NETWORK_SKIP,
);
environmentContract(
  "oci (a docker save archive of that image, via skopeo)",
  () =>
    fixture(async (scratch) => {
      const layout = ociLayout(await debianRootfs(), scratch);
      mkdirSync(join(scratch, "archive"));
      const archive = join(scratch, "archive", "trixie.tar");
      execFileSync("skopeo", [
        "copy",
        "--quiet",
        `oci:${layout}:trixie`,
        `docker-archive:${archive}:gagar/trixie:1`,
      ]);
      return { kind: "oci", path: archive };
    }),
  NETWORK_SKIP,
);
environmentContract(
  "oci (an image reference, oci-archive: of that image, copied into the cache by skopeo)",
  () =>
    fixture(async (scratch) => {
      const layout = ociLayout(await debianRootfs(), scratch);
      const archive = join(scratch, "trixie.oci.tar");
      execFileSync("skopeo", ["copy", "--quiet", `oci:${layout}:trixie`, `oci-archive:${archive}:trixie`]);
      return { kind: "oci", image: `oci-archive:${archive}` };
    }),
  NETWORK_SKIP,
);
