import { afterEach, describe, expect, it } from "vitest";
import { InputError } from "../errors.ts";
import { HandBack, type HandBackPolicy, type JobContext, type JobQueue, type JobSnapshot } from "./types.ts";

/**
 * What every JobQueue must do, run against each implementation (queue.contract.test.ts). A target
 * opens a fresh, empty queue per test with a short retry back-off; `another` opens a second handle
 * on the same queue, as a second process would, where the implementation supports that.
 */
export interface QueueContractTarget {
  name: string;
  /** `handBack` overrides the implementation's hand-back policy for this queue (and `another`). */
  open(options?: {
    handBack?: Partial<HandBackPolicy>;
  }): Promise<{ queue: JobQueue; another?: () => Promise<JobQueue> }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A promise with its resolve function, to hold a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

export function runQueueContract(target: QueueContractTarget): void {
  describe(`JobQueue contract: ${target.name}`, () => {
    const opened: JobQueue[] = [];
    const open = async (options?: { handBack?: Partial<HandBackPolicy> }) => {
      const handles = await target.open(options);
      opened.push(handles.queue);
      const another = handles.another;
      return {
        queue: handles.queue,
        another: another
          ? async () => {
              const q = await another();
              opened.push(q);
              return q;
            }
          : undefined,
      };
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((q) => q.close()));
    });

    it("runs a job and keeps its result, its state and its counts", async () => {
      const { queue } = await open();
      queue.process(async (job) => ({ doubled: (job.data as { n: number }).n * 2, name: job.name }), {
        concurrency: 1,
      });
      expect(await queue.add("double", { n: 21 }, { jobId: "j1" })).toBe("j1");
      const done = await queue.waitFor("j1", 10_000);
      expect(done).toMatchObject({
        id: "j1",
        name: "double",
        state: "completed",
        result: { doubled: 42, name: "double" },
        attempts: 1,
      });
      expect(done!.finishedAt).toBeGreaterThanOrEqual(done!.createdAt);
      expect(await queue.get("j1")).toEqual(done);
      expect(await queue.counts()).toEqual({ waiting: 0, active: 0, completed: 1, failed: 0 });
      expect(await queue.get("nope")).toBeUndefined();
      expect(await queue.waitFor("nope", 10)).toBeUndefined();
    });

    it("adds a job id once, whether it is waiting or finished", async () => {
      const { queue } = await open();
      await queue.add("w", { v: 1 }, { jobId: "same" });
      await queue.add("w", { v: 2 }, { jobId: "same" });
      const seen: unknown[] = [];
      queue.process(
        async (job) => {
          seen.push(job.data);
          return job.data;
        },
        { concurrency: 2 },
      );
      expect((await queue.waitFor("same", 10_000))?.result).toEqual({ v: 1 });
      await queue.add("w", { v: 3 }, { jobId: "same" });
      await sleep(100);
      expect(seen).toEqual([{ v: 1 }]);
      expect((await queue.get("same"))?.result).toEqual({ v: 1 });
      expect(await queue.counts()).toMatchObject({ waiting: 0, completed: 1 });
    });

    it("shows a running job's progress, and waitFor gives the current state at its timeout", async () => {
      const { queue } = await open();
      const release = gate();
      queue.process(
        async (job) => {
          await job.progress({ done: 1, total: 2 });
          await release.promise;
          return "ok";
        },
        { concurrency: 1 },
      );
      await queue.add("slow", {}, { jobId: "p" });
      const running = await until(async () => {
        const s = await queue.get("p");
        return s?.progress ? s : undefined;
      }, "progress");
      expect(running).toMatchObject({ state: "active", progress: { done: 1, total: 2 } });
      expect((await queue.waitFor("p", 50))?.state).toBe("active");
      expect(await queue.counts()).toMatchObject({ active: 1 });
      release.open();
      expect((await queue.waitFor("p", 10_000))?.state).toBe("completed");
    });

    it("retries a failing job, and fails it with the last error after its attempts", async () => {
      const { queue } = await open();
      const attempts = new Map<string, number[]>();
      queue.process(
        async (job) => {
          attempts.set(job.id, [...(attempts.get(job.id) ?? []), job.attempt]);
          if (job.id === "flaky" && job.attempt < 3) throw new Error(`flaky ${job.attempt}`);
          if (job.id === "broken") throw new Error("always broken");
          return job.attempt;
        },
        { concurrency: 2 },
      );
      await queue.add("x", {}, { jobId: "flaky", attempts: 3 });
      await queue.add("x", {}, { jobId: "broken", attempts: 2 });
      expect(await queue.waitFor("flaky", 10_000)).toMatchObject({
        state: "completed",
        result: 3,
        attempts: 3,
      });
      const broken = await queue.waitFor("broken", 10_000);
      expect(broken).toMatchObject({ state: "failed", attempts: 2 });
      expect(broken!.error).toMatch(/always broken/);
      expect(attempts.get("broken")).toEqual([1, 2]);
    });

    it("fails at once on an error that retrying cannot fix, with its message as given", async () => {
      const { queue } = await open();
      let calls = 0;
      queue.process(
        async () => {
          calls++;
          throw new InputError({ file: "request body", field: "groups.0.id" }, "duplicate group id");
        },
        { concurrency: 1 },
      );
      await queue.add("x", {}, { jobId: "bad", attempts: 5 });
      const failed = await queue.waitFor("bad", 10_000);
      expect(failed).toMatchObject({
        state: "failed",
        error: "request body (field groups.0.id): duplicate group id",
      });
      expect(calls).toBe(1);
      expect(await queue.counts()).toMatchObject({ failed: 1 });
    });

    it("takes a job handed back without using up an attempt, and runs it again (in another process where there is one)", async () => {
      // Short back-offs and room for many hand-backs: which process takes the job next is a race.
      const { queue, another } = await open({ handBack: { delayMs: 10, maxDelayMs: 50, maxHandBacks: 100 } });
      let declined = 0;
      if (another) {
        queue.process(
          async () => {
            declined++;
            throw new HandBack("the task pack is not available here");
          },
          { concurrency: 1 },
        );
      } else {
        queue.process(
          async (job) => {
            if (declined === 0) {
              declined++;
              await job.saveCheckpoint("looked");
              throw new HandBack("not now");
            }
            return { ranBy: "this process", checkpoint: job.checkpoint };
          },
          { concurrency: 1 },
        );
      }
      await queue.add("x", { n: 1 }, { jobId: "hb", attempts: 1 });
      await until(
        async () => (((await queue.get("hb"))?.handBacks ?? 0) >= 1 ? true : undefined),
        "a hand-back",
      );
      if (another) (await another()).process(async () => ({ ranBy: "another process" }), { concurrency: 1 });
      const done = await queue.waitFor("hb", 10_000);
      expect(done).toMatchObject({ state: "completed", handBacks: declined });
      expect(done!.result).toEqual(
        another ? { ranBy: "another process" } : { ranBy: "this process", checkpoint: "looked" },
      );
      expect(done!.attempts).toBe(declined + 1);
    });

    it("fails a job handed back `maxHandBacks` times, with the hand-back's reason", async () => {
      const { queue } = await open({ handBack: { delayMs: 5, maxDelayMs: 20, maxHandBacks: 3 } });
      let declined = 0;
      queue.process(
        async () => {
          declined++;
          throw new HandBack("task pack abc123 is not available here");
        },
        { concurrency: 1 },
      );
      await queue.add("x", {}, { jobId: "nobody", attempts: 5 });
      const failed = await queue.waitFor("nobody", 10_000);
      expect(failed).toMatchObject({ state: "failed", handBacks: 3 });
      expect(failed!.error).toMatch(/handed back 3 times.*task pack abc123 is not available here/);
      expect(declined).toBe(3);
    });

    it("gives a later attempt the checkpoint an earlier one saved", async () => {
      const { queue } = await open();
      const seen: unknown[] = [];
      queue.process(
        async (job) => {
          seen.push(job.checkpoint);
          if (job.attempt === 1) {
            await job.saveCheckpoint({ verdict: "passed" });
            throw new Error("died after the expensive part");
          }
          return job.checkpoint;
        },
        { concurrency: 1 },
      );
      await queue.add("x", { big: "data" }, { jobId: "c" });
      expect((await queue.waitFor("c", 10_000))?.result).toEqual({ verdict: "passed" });
      expect(seen).toEqual([undefined, { verdict: "passed" }]);
    });

    it("sends a failed job round again on retry, with fresh attempts", async () => {
      const { queue } = await open();
      let fixed = false;
      queue.process(
        async () => {
          if (!fixed) throw new Error("not yet");
          return "fixed";
        },
        { concurrency: 1 },
      );
      await queue.add("x", {}, { jobId: "r", attempts: 1 });
      expect((await queue.waitFor("r", 10_000))?.state).toBe("failed");
      fixed = true;
      expect(await queue.retry("r")).toBe(true);
      expect(await queue.waitFor("r", 10_000)).toMatchObject({
        state: "completed",
        result: "fixed",
        attempts: 1,
      });
      expect(await queue.retry("r")).toBe(false);
      expect(await queue.retry("nope")).toBe(false);
    });

    it("runs at most `concurrency` jobs at once", async () => {
      const { queue } = await open();
      let now = 0;
      let most = 0;
      queue.process(
        async () => {
          most = Math.max(most, ++now);
          await sleep(50);
          now--;
        },
        { concurrency: 2 },
      );
      const ids = ["a", "b", "c", "d", "e"];
      for (const id of ids) await queue.add("x", {}, { jobId: id });
      for (const id of ids) expect((await queue.waitFor(id, 10_000))?.state).toBe("completed");
      expect(most).toBe(2);
    });

    it("on close, lets a job finish within the grace time and hands back one that does not", async () => {
      const { queue, another } = await open();
      const quick = gate();
      let aborted: AbortSignal | undefined;
      queue.process(
        async (job: JobContext) => {
          if (job.id === "quick") {
            await quick.promise;
            return "finished";
          }
          await job.saveCheckpoint("half-way");
          aborted = job.signal;
          return new Promise(() => {}); // never finishes on its own
        },
        { concurrency: 2 },
      );
      await queue.add("x", {}, { jobId: "quick" });
      await queue.add("x", {}, { jobId: "stuck" });
      await until(async () => (aborted ? true : undefined), "both jobs running");
      await until(async () => ((await queue.get("quick"))?.state === "active" ? true : undefined), "quick");
      setTimeout(quick.open, 50);
      await queue.close({ graceMs: 1000 });
      expect(aborted?.aborted).toBe(true);
      await expect((await reader(queue, another)).get("quick")).resolves.toMatchObject({
        state: "completed",
        result: "finished",
      });
      const stuck = await (await reader(queue, another)).get("stuck");
      expect(stuck?.state).toBe("waiting");
      if (another) {
        const second = await another();
        second.process(async (job) => `resumed from ${job.checkpoint}`, { concurrency: 1 });
        const resumed: JobSnapshot | undefined = await second.waitFor("stuck", 10_000);
        expect(resumed).toMatchObject({ state: "completed", result: "resumed from half-way" });
      }
    });
  });
}

/** A handle to read a queue after `queue` was closed: a new one where the backend allows it. */
async function reader(queue: JobQueue, another?: () => Promise<JobQueue>): Promise<JobQueue> {
  return another ? another() : queue;
}
