import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTool } from "../../sandbox/host-tools.ts";
import { BuildCache } from "./cache.ts";
import { redactCredentials } from "./image-pull.ts";
import { prepareRoot, readyRoot } from "./root-source.ts";
import { EnvironmentError } from "./types.ts";

/**
 * `oci` environments that name an `image` reference, hermetically: a tiny image is built here with
 * umoci from a root directory made by hand (usr/, etc/ and a marker file), and served through every
 * local skopeo transport; a `docker://` reference points at a loopback port with nothing listening.
 */
const SKIP =
  process.getuid?.() !== 0
    ? "umoci unpacks images as root"
    : !findTool("umoci") || !findTool("skopeo")
      ? "needs umoci and skopeo (apt-get install umoci skopeo)"
      : undefined;

const scratch = mkdtempSync(join(tmpdir(), "gagar-image-pull-"));
const taskDir = join(scratch, "task");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An OCI layout holding one image whose root has `etc/marker` = `marker`, tagged `tag`. */
function tinyImage(name: string, marker: string, tag = "tiny"): string {
  const layout = join(scratch, name);
  const bundle = join(scratch, `${name}-bundle`);
  execFileSync("umoci", ["init", "--layout", layout]);
  execFileSync("umoci", ["new", "--image", `${layout}:${tag}`]);
  execFileSync("umoci", ["unpack", "--image", `${layout}:${tag}`, bundle]);
  for (const dir of ["usr/bin", "etc"]) mkdirSync(join(bundle, "rootfs", dir), { recursive: true });
  writeFileSync(join(bundle, "rootfs", "etc", "marker"), marker);
  execFileSync("umoci", ["repack", "--image", `${layout}:${tag}`, bundle]);
  rmSync(bundle, { recursive: true, force: true });
  return layout;
}

function skopeoCopy(from: string, to: string): void {
  execFileSync("skopeo", ["copy", "--quiet", from, to]);
}

/** Entries of the cache folder: complete ones and any temporary (.partial) ones. */
function cacheEntries(cache: string): string[] {
  return readdirSync(cache, { withFileTypes: true }).map((e) => e.name);
}

describe.skipIf(SKIP !== undefined)(
  `oci environment image references${SKIP ? ` (skipped: ${SKIP})` : ""}`,
  () => {
    let layout: string;
    const refs: Record<string, string> = {};

    beforeAll(() => {
      mkdirSync(taskDir, { recursive: true });
      layout = tinyImage("layout", "one");
      skopeoCopy(`oci:${layout}:tiny`, `oci-archive:${join(scratch, "image.oci.tar")}`);
      skopeoCopy(`oci:${layout}:tiny`, `docker-archive:${join(scratch, "image.docker.tar")}:gagar/tiny:1`);
      skopeoCopy(`oci:${layout}:tiny`, `dir:${join(scratch, "image.dir")}`);
      skopeoCopy(`oci:${layout}:tiny`, `oci-archive:${join(taskDir, "relative.tar")}`);
      Object.assign(refs, {
        oci: `oci:${layout}:tiny`,
        "oci-archive": `oci-archive:${join(scratch, "image.oci.tar")}`,
        "docker-archive": `docker-archive:${join(scratch, "image.docker.tar")}:gagar/tiny:1`,
        dir: `dir:${join(scratch, "image.dir")}`,
        relative: "oci-archive:relative.tar",
      });
    }, 120_000);

    it.each(["oci", "oci-archive", "docker-archive", "dir", "relative"])(
      "copies a %s reference into the cache once, with progress lines, and takes it from there afterwards",
      async (kind) => {
        const cacheDir = join(scratch, `cache-${kind}`);
        const log: string[] = [];
        const first = await prepareRoot(
          { kind: "oci", image: refs[kind]! },
          { cacheDir, taskDir, log: (m) => log.push(m) },
        );
        expect(first.cached).toBe(false);
        expect(readFileSync(join(first.root!, "etc", "marker"), "utf8")).toBe("one");
        expect(log[0]).toBe(`copying image ${refs[kind]} into the environment cache (skopeo copy)`);
        expect(
          log.some((l) => /^ {2}.*: Copying blob sha256:/.test(l)),
          log.join("\n"),
        ).toBe(true);
        expect(log.at(-1)).toMatch(/^unpacking image /);
        // The copied layout and the unpacked root, both complete; nothing temporary is left.
        expect(
          cacheEntries(cacheDir).filter((e) => e.endsWith(".partial") || e.startsWith(".layout")),
        ).toEqual([]);
        expect(cacheEntries(cacheDir)).toHaveLength(2);

        const again: string[] = [];
        const second = await prepareRoot(
          { kind: "oci", image: refs[kind]! },
          { cacheDir, taskDir, log: (m) => again.push(m) },
        );
        expect([second.cached, second.buildMs, second.digest, second.root]).toEqual([
          true,
          0,
          first.digest,
          first.root,
        ]);
        expect(again).toEqual([]);
      },
      120_000,
    );

    it("keys the unpacked root by the manifest digest: a layout and its archive share one root", async () => {
      const cacheDir = join(scratch, "cache-shared");
      const fromLayout = await prepareRoot({ kind: "oci", image: refs.oci! }, { cacheDir, taskDir });
      const fromArchive = await prepareRoot(
        { kind: "oci", image: refs["oci-archive"]! },
        { cacheDir, taskDir },
      );
      const fromPath = await prepareRoot({ kind: "oci", path: layout, ref: "tiny" }, { cacheDir, taskDir });
      expect(fromArchive.digest).toBe(fromLayout.digest);
      expect(fromPath.digest).toBe(fromLayout.digest);
      expect([fromArchive.cached, fromPath.cached]).toEqual([true, true]);
    }, 120_000);

    it("copies a local archive again when its content changes under the same reference", async () => {
      const cacheDir = join(scratch, "cache-changed");
      const archive = join(scratch, "changing.tar");
      skopeoCopy(`oci:${layout}:tiny`, `oci-archive:${archive}`);
      const before = await prepareRoot(
        { kind: "oci", image: `oci-archive:${archive}` },
        { cacheDir, taskDir },
      );
      rmSync(archive);
      skopeoCopy(`oci:${tinyImage("layout-two", "two")}:tiny`, `oci-archive:${archive}`);
      const after = await prepareRoot(
        { kind: "oci", image: `oci-archive:${archive}` },
        { cacheDir, taskDir },
      );
      expect(after.cached).toBe(false);
      expect(after.digest).not.toBe(before.digest);
      expect(readFileSync(join(after.root!, "etc", "marker"), "utf8")).toBe("two");
    }, 120_000);

    it("says the registry is unreachable, located in task.json, and leaves no cache entry", async () => {
      const cacheDir = join(scratch, "cache-unreachable");
      const error = await prepareRoot(
        { kind: "oci", image: "docker://127.0.0.1:9/x:y" },
        { cacheDir, taskDir },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EnvironmentError);
      const message = (error as Error).message;
      expect(message).toContain(
        `${join(taskDir, "task.json")} (field environment.image): cannot pull docker://127.0.0.1:9/x:y:`,
      );
      expect(message).toContain("the registry 127.0.0.1:9 is unreachable from this machine");
      expect(message).toContain("connection refused");
      expect(cacheEntries(cacheDir)).toEqual([]);
      // A setup environment's base is located as such.
      await expect(
        readyRoot(
          { kind: "oci", image: "docker://127.0.0.1:9/x:y" },
          taskDir,
          new BuildCache(cacheDir),
          undefined,
          "environment.base",
        ),
      ).rejects.toThrow(
        "(field environment.base.image): cannot pull docker://127.0.0.1:9/x:y: the registry 127.0.0.1:9 is unreachable",
      );
    }, 60_000);

    it("keeps a proxy's credentials out of the error and the log", async () => {
      const cacheDir = join(scratch, "cache-proxy");
      const saved = process.env.HTTPS_PROXY;
      process.env.HTTPS_PROXY = "http://gagar-user:s3cret-pw@127.0.0.1:9";
      const log: string[] = [];
      try {
        const error = await prepareRoot(
          { kind: "oci", image: "docker://registry.example:5000/team/image:1" },
          { cacheDir, taskDir, log: (m) => log.push(m) },
        ).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toContain("the registry registry.example:5000 is unreachable");
        expect(`${error?.message}\n${log.join("\n")}`).not.toContain("s3cret");
      } finally {
        if (saved === undefined) delete process.env.HTTPS_PROXY;
        else process.env.HTTPS_PROXY = saved;
      }
      expect(cacheEntries(cacheDir)).toEqual([]);
    }, 60_000);

    it("names a missing file, and a file that is no image, with the field", async () => {
      const cacheDir = join(scratch, "cache-bad");
      await expect(
        prepareRoot({ kind: "oci", image: "oci-archive:missing.tar" }, { cacheDir, taskDir }),
      ).rejects.toThrow(`(field environment.image): ${join(taskDir, "missing.tar")} does not exist`);
      writeFileSync(join(taskDir, "garbage.tar"), "not a tar archive\n");
      await expect(
        prepareRoot({ kind: "oci", image: "oci-archive:garbage.tar" }, { cacheDir, taskDir }),
      ).rejects.toThrow(`(field environment.image): skopeo copy oci-archive:garbage.tar failed: `);
      await expect(
        prepareRoot({ kind: "oci", image: `oci:${layout}:nosuchtag` }, { cacheDir, taskDir }),
      ).rejects.toThrow(`skopeo copy oci:${layout}:nosuchtag failed: `);
      expect(cacheEntries(cacheDir)).toEqual([]);
    }, 60_000);
  },
);

describe("redactCredentials", () => {
  it("blanks URL credentials and authorization values", () => {
    expect(redactCredentials('proxyconnect "http://u:pw@proxy:3128" failed')).toBe(
      'proxyconnect "http://***@proxy:3128" failed',
    );
    expect(redactCredentials("Authorization: Bearer abc.def-ghi")).toBe("Authorization: Bearer ***");
    expect(redactCredentials('{"auth": "dXNlcjpwdw=="}')).toBe('{"auth": "***"}');
    expect(redactCredentials("Copying blob sha256:0123 done")).toBe("Copying blob sha256:0123 done");
  });
});
