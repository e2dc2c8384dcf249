import { describe, expect, it } from "vitest";
import { bindEntry, formatFstab } from "./fstab.ts";

describe("formatFstab", () => {
  it("writes one line per mount in order", () => {
    const text = formatFstab([
      bindEntry("/usr", "/r/usr", true),
      { source: "tmpfs", target: "/r/tmp", type: "tmpfs", options: ["size=1024", "mode=1777"] },
    ]);
    expect(text).toBe(
      "/usr /r/usr none bind,ro,nosuid,nodev 0 0\ntmpfs /r/tmp tmpfs size=1024,mode=1777 0 0\n",
    );
  });

  it("escapes whitespace, backslashes and # so odd paths stay one field", () => {
    const text = formatFstab([bindEntry("/a b\\c#d\te\nf", "/t", false)]);
    expect(text).toBe("/a\\040b\\134c\\043d\\011e\\012f /t none bind,nosuid,nodev 0 0\n");
  });

  it("refuses empty fields and NUL bytes", () => {
    expect(() => formatFstab([bindEntry("", "/t", false)])).toThrow();
    expect(() => formatFstab([bindEntry("/a\0b", "/t", false)])).toThrow();
  });
});
