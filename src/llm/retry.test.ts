import { describe, expect, it } from "vitest";
import { ChatModelError } from "./chat-model-error.ts";
import { abortableSleep, backoffDelayMs, withRetries } from "./retry.ts";

const policy = { retries: 3, initialDelayMs: 100, maxDelayMs: 300 };

describe("backoffDelayMs", () => {
  it("doubles from the initial delay, caps at the maximum and jitters into [0.5, 1) of it", () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(50);
    expect(backoffDelayMs(2, policy, () => 0.999)).toBeCloseTo(199.9);
    expect(backoffDelayMs(5, policy, () => 0)).toBe(150);
  });

  it("uses the server's Retry-After, capped", () => {
    expect(backoffDelayMs(1, policy, () => 0, 200)).toBe(200);
    expect(backoffDelayMs(1, policy, () => 0, 10_000)).toBe(300);
  });
});

describe("withRetries", () => {
  const waits: number[] = [];
  const ctx = { policy, random: () => 0, sleep: async (ms: number) => void waits.push(ms) };

  it("retries retryable failures and reports the attempts", async () => {
    waits.length = 0;
    const result = await withRetries(async (n) => {
      if (n < 3) throw new ChatModelError("503", "server", { status: 503 });
      return "ok";
    }, ctx);
    expect(result).toEqual({ value: "ok", attempts: 3 });
    expect(waits).toEqual([50, 100]);
  });

  it("gives up after the configured retries with the last error and its attempt count", async () => {
    const error = await withRetries(async () => {
      throw new ChatModelError("refused", "connection");
    }, ctx).catch((e) => e);
    expect(error).toBeInstanceOf(ChatModelError);
    expect(error.options.attempts).toBe(4);
  });

  it("does not retry client errors", async () => {
    let calls = 0;
    const error = await withRetries(async () => {
      calls++;
      throw new ChatModelError("bad request", "client", { status: 400 });
    }, ctx).catch((e) => e);
    expect(calls).toBe(1);
    expect(error.kind).toBe("client");
  });

  it("stops when the next wait would pass the deadline", async () => {
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls++;
        throw new ChatModelError("429", "rate-limit", { retryAfterMs: 250 });
      },
      { ...ctx, now: () => 1_000, deadline: 1_200 },
    ).catch((e) => e);
    expect(calls).toBe(1);
    expect(error.kind).toBe("rate-limit");
  });

  it("turns an abort during the wait into an aborted error", async () => {
    const controller = new AbortController();
    const pending = withRetries(
      async () => {
        throw new ChatModelError("500", "server");
      },
      { policy: { retries: 1, initialDelayMs: 10_000, maxDelayMs: 10_000 }, signal: controller.signal },
    ).catch((e) => e);
    setTimeout(() => controller.abort(), 5);
    const error = await pending;
    expect(error.kind).toBe("aborted");
    expect(error.options.attempts).toBe(1);
  });
});

describe("abortableSleep", () => {
  it("resolves after the delay", async () => {
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});
