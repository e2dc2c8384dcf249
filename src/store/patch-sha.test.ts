import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { patchSha256 } from "./patch-sha.ts";

describe("patchSha256", () => {
  it("is the SHA-256 of the UTF-8 bytes in lowercase hex", () => {
    expect(patchSha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(patchSha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes non-ASCII text as UTF-8, not UTF-16", () => {
    // "é" is the two bytes c3 a9 in UTF-8 (e9 00 in UTF-16LE, e9 in Latin-1).
    const utf8 = createHash("sha256")
      .update(Buffer.from([0xc3, 0xa9]))
      .digest("hex");
    expect(patchSha256("é")).toBe(utf8);
    expect(patchSha256("é")).not.toBe(patchSha256("e\u0301"));
  });

  it("does not normalize whitespace", () => {
    expect(patchSha256("+x\n")).not.toBe(patchSha256("+x\r\n"));
  });
});
