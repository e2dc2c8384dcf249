import { describe, expect, it } from "vitest";
import { parseImageReference } from "./image-reference.ts";

function messageOf(text: string): string {
  const parsed = parseImageReference(text);
  if (parsed.ok) throw new Error(`${text} parsed`);
  return parsed.message;
}

describe("parseImageReference", () => {
  it("reads registry references with the registry they resolve to", () => {
    for (const [text, name, registry] of [
      ["docker://docker.io/library/python:3.12-slim", "docker.io/library/python:3.12-slim", "docker.io"],
      ["docker://python:3.12", "python:3.12", "docker.io"],
      ["docker://library/python", "library/python", "docker.io"],
      ["docker://127.0.0.1:9/x:y", "127.0.0.1:9/x:y", "127.0.0.1:9"],
      ["docker://localhost/team/img", "localhost/team/img", "localhost"],
      ["docker://ghcr.io/org/repo-name/sub_img:v1.2", "ghcr.io/org/repo-name/sub_img:v1.2", "ghcr.io"],
      [`docker://quay.io/a/b@sha256:${"a".repeat(64)}`, `quay.io/a/b@sha256:${"a".repeat(64)}`, "quay.io"],
      [`docker://python@sha256:${"0".repeat(64)}`, `python@sha256:${"0".repeat(64)}`, "docker.io"],
    ] as const) {
      expect(parseImageReference(text)).toEqual({ ok: true, ref: { transport: "docker", name, registry } });
    }
  });

  it("reads local references: the path up to the first ':', then what picks the image", () => {
    expect(parseImageReference("oci:images/x:latest")).toEqual({
      ok: true,
      ref: { transport: "oci", path: "images/x", selector: "latest" },
    });
    expect(parseImageReference("oci-archive:/abs/image.tar")).toEqual({
      ok: true,
      ref: { transport: "oci-archive", path: "/abs/image.tar" },
    });
    expect(parseImageReference("docker-archive:save.tar:org/img:1")).toEqual({
      ok: true,
      ref: { transport: "docker-archive", path: "save.tar", selector: "org/img:1" },
    });
    expect(parseImageReference("docker-archive:save.tar:@0")).toEqual({
      ok: true,
      ref: { transport: "docker-archive", path: "save.tar", selector: "@0" },
    });
    expect(parseImageReference("dir:images/x")).toEqual({
      ok: true,
      ref: { transport: "dir", path: "images/x" },
    });
  });

  it("says what is wrong with a bad reference", () => {
    expect(messageOf("python:3.12")).toMatch(
      /has no skopeo transport gagar takes: start it with docker:\/\//,
    );
    expect(messageOf("/images/x.tar")).toMatch(/has no skopeo transport/);
    expect(messageOf("docker:python")).toMatch(/docker:\/\/\[REGISTRY\/\]NAME\[:TAG\], not docker:python/);
    expect(messageOf("docker://Docker.io/Library/Python")).toMatch(
      /not a valid registry reference.*lower case/,
    );
    expect(messageOf("docker://python:bad tag")).toMatch(/spaces/);
    expect(messageOf("docker://https://ghcr.io/x")).toMatch(/URL scheme after docker:\/\//);
    expect(messageOf("docker://")).toMatch(/not a valid registry reference/);
    expect(messageOf("oci:")).toBe('"oci:" names no directory after oci:');
    expect(messageOf("oci-archive::tag")).toBe('"oci-archive::tag" names no file after oci-archive:');
    expect(messageOf("oci:dir:")).toMatch(/ends with ":"/);
    expect(messageOf("dir:a:b")).toMatch(/a dir: reference is a directory alone/);
    expect(messageOf("docker-daemon:python:3")).toMatch(/docker save IMAGE -o image.tar/);
    expect(messageOf("containers-storage:x")).toMatch(/oci-archive:image.tar/);
  });

  it("refuses credentials without repeating them", () => {
    for (const text of [
      "docker://user:s3cret@registry.example/x:1",
      "docker://user@registry.example/x:1",
      "https://user:s3cret@registry.example/x",
      "user:s3cret@registry.example/x",
    ]) {
      const message = messageOf(text);
      expect(message).toMatch(/holds credentials.*skopeo login/);
      expect(message).not.toContain("s3cret");
    }
  });
});
