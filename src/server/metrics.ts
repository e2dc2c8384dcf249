import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Ranking } from "../contracts/ranking.ts";
import type { JobQueue } from "../queue/types.ts";

/** Seconds over which the rate of finished units is measured (for Retry-After). */
const RATE_WINDOW_MS = 60_000;

/**
 * The service's Prometheus metrics (`GET /metrics`): queue depth and jobs by state for the request
 * and unit queues (read from the queue at scrape time), the verification time of every patch the
 * service saw verified, grader fallbacks, and requests turned away. Also keeps the recent rate of
 * finished units, from which a 429's Retry-After is estimated.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly verification: Histogram;
  private readonly fallbacks: Counter;
  private readonly rejected: Counter;
  private readonly requests: Counter;
  private readonly finished: number[] = [];

  constructor(queues: Record<string, JobQueue>) {
    // prom-client's own names start with process_ or nodejs_: gagar_process_cpu_user_seconds_total, …
    collectDefaultMetrics({ register: this.registry, prefix: "gagar_" });
    const registers = [this.registry];
    new Gauge({
      name: "gagar_queue_depth",
      help: "Jobs waiting or running, by queue (requests: API jobs; units: verifications and gradings)",
      labelNames: ["queue"],
      registers,
      async collect() {
        for (const [name, queue] of Object.entries(queues)) {
          const c = await queue.counts();
          this.set({ queue: name }, c.waiting + c.active);
        }
      },
    });
    new Gauge({
      name: "gagar_jobs",
      help: "Jobs by queue and state (finished jobs count until the queue's retention drops them)",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        for (const [name, queue] of Object.entries(queues)) {
          for (const [state, n] of Object.entries(await queue.counts())) this.set({ queue: name, state }, n);
        }
      },
    });
    this.verification = new Histogram({
      name: "gagar_verification_seconds",
      help: "Wall time of one patch's verification (gate, workspace, sandbox, tests), by verdict reason",
      labelNames: ["reason"],
      buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900],
      registers,
    });
    this.fallbacks = new Counter({
      name: "gagar_grader_fallbacks_total",
      help: "Rankings where the requested grader could not rank and another did, by requested grader",
      labelNames: ["grader"],
      registers,
    });
    this.rejected = new Counter({
      name: "gagar_requests_rejected_total",
      help: "Requests answered 429, by reason (queue over its bound, too many requests in flight)",
      labelNames: ["reason"],
      registers,
    });
    this.requests = new Counter({
      name: "gagar_http_requests_total",
      help: "HTTP requests answered, by route and status",
      labelNames: ["route", "status"],
      registers,
    });
  }

  /** A verification finished (seen by the request that waited for it, once per patch). */
  verified(reason: string, totalMs: number | undefined): void {
    if (totalMs !== undefined) this.verification.observe({ reason }, totalMs / 1000);
    this.unitFinished();
  }

  ranked(ranking: Ranking): void {
    if (ranking.grader.fallback) this.fallbacks.inc({ grader: ranking.grader.fallback.from });
    this.unitFinished();
  }

  rejectedRequest(reason: "queue-full" | "in-flight"): void {
    this.rejected.inc({ reason });
  }

  answered(route: string, status: number): void {
    this.requests.inc({ route, status: String(status) });
  }

  /** Units finished per second over the last minute, or undefined before any finished. */
  unitRate(now = Date.now()): number | undefined {
    while (this.finished.length && this.finished[0]! < now - RATE_WINDOW_MS) this.finished.shift();
    if (!this.finished.length) return undefined;
    const span = Math.max(1000, now - this.finished[0]!);
    return this.finished.length / (span / 1000);
  }

  private unitFinished(): void {
    const now = Date.now();
    this.finished.push(now);
    if (this.finished.length > 10_000) this.unitRate(now);
  }
}
