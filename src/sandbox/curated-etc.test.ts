import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SANDBOX_USER, writeCuratedEtc } from "./curated-etc.ts";

const scratch = mkdtempSync(join(tmpdir(), "gagar-etc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("writeCuratedEtc", () => {
  it("writes account entries for the run uid and only public host files", async () => {
    const dir = join(scratch, "etc");
    const binds = await writeCuratedEtc(dir, 61234);
    expect(readFileSync(join(dir, "passwd"), "utf8")).toContain(`${SANDBOX_USER}:x:61234:61234:`);
    expect(readFileSync(join(dir, "group"), "utf8")).toContain(`${SANDBOX_USER}:x:61234:`);
    expect(readFileSync(join(dir, "hosts"), "utf8")).toMatch(/^127\.0\.0\.1\tlocalhost$/m);
    for (const secret of ["shadow", "gshadow", "ssl/private", "sudoers", "ssh"]) {
      expect(existsSync(join(dir, secret))).toBe(false);
    }
    if (existsSync("/etc/ld.so.cache")) expect(lstatSync(join(dir, "ld.so.cache")).isFile()).toBe(true);
    for (const bind of binds) {
      expect(bind.source).toBe(bind.target);
      expect(lstatSync(join(dir, bind.target.slice("/etc/".length))).isDirectory()).toBe(true);
    }
    expect(binds.map((b) => b.target)).not.toContain("/etc/ssl/private");
  });
});
