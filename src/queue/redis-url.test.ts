import { describe, expect, it } from "vitest";
import { redact, redisOptions } from "./redis-url.ts";

describe("redisOptions", () => {
  it("reads host, port, database and credentials from a redis URL", () => {
    expect(redisOptions("redis://127.0.0.1:6380/2")).toEqual({ host: "127.0.0.1", port: 6380, db: 2 });
    expect(redisOptions("redis://queue.internal")).toEqual({ host: "queue.internal", port: 6379, db: 0 });
    expect(redisOptions("rediss://gagar:s%40cret@q:6390")).toEqual({
      host: "q",
      port: 6390,
      db: 0,
      username: "gagar",
      password: "s@cret",
      tls: {},
    });
  });

  it("refuses other schemes and bad databases without echoing the password", () => {
    expect(() => redisOptions("http://q:6379")).toThrow(/expected a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => redisOptions("redis://u:hunter2@q/zero")).toThrow(/must be a number/);
    expect(() => redisOptions("redis://u:hunter2@q/zero")).not.toThrow(/hunter2/);
    expect(() => redisOptions("not a url")).toThrow(/is not a URL/);
    expect(redact("redis://u:hunter2@q:1/0")).toBe("redis://u:***@q:1/0");
  });
});
