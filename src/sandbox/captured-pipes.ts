import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

const STATUS_CAP = 64 * 1024;

/**
 * What a supervised child wrote: stdout and stderr share one byte cap (a run that floods either is
 * killed through `onCap`, once), fd 3 — the wrapper chain's status pipe — has its own small cap.
 * Kept apart from the supervisor so the cap's accounting reads on its own.
 */
export interface CapturedPipes {
  /** True once stdout+stderr reached the cap; what came after was dropped. */
  readonly capped: boolean;
  /** Settles when every pipe closed (an escaped daemon can hold them open past the child's exit). */
  readonly drained: Promise<void>;
  /** Cuts the pipes off without waiting for them to close. */
  destroy(): void;
  stdout(): string;
  stderr(): string;
  status(): string;
}

export function capturePipes(
  child: ChildProcess,
  outputCapBytes: number,
  onCap: () => void,
  onStdout?: (chunk: Buffer) => void,
): CapturedPipes {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const status: Buffer[] = [];
  let outputBytes = 0;
  let statusBytes = 0;
  let capped = false;
  const collect = (stream: Readable | null, into: Buffer[]) => {
    stream?.on("data", (chunk: Buffer) => {
      if (capped) return;
      const room = outputCapBytes - outputBytes;
      if (chunk.length > room) {
        if (room > 0) into.push(chunk.subarray(0, room));
        outputBytes = outputCapBytes;
        capped = true;
        onCap();
        return;
      }
      into.push(chunk);
      outputBytes += chunk.length;
    });
  };
  if (onStdout) child.stdout?.on("data", onStdout);
  collect(child.stdout, out);
  collect(child.stderr, err);
  const statusStream = child.stdio[3] as Readable | null;
  statusStream?.on("data", (chunk: Buffer) => {
    if (statusBytes >= STATUS_CAP) return;
    status.push(chunk);
    statusBytes += chunk.length;
  });
  const streams = [child.stdout, child.stderr, statusStream].filter((s): s is Readable => s !== null);
  const drained = Promise.all(
    streams.map(
      (s) =>
        new Promise<void>((resolve) =>
          s.readableEnded || s.destroyed ? resolve() : s.once("close", resolve),
        ),
    ),
  ).then(() => {});
  return {
    get capped() {
      return capped;
    },
    drained,
    destroy: () => {
      for (const s of streams) s.destroy();
    },
    stdout: () => Buffer.concat(out).toString("utf8"),
    stderr: () => Buffer.concat(err).toString("utf8"),
    status: () => Buffer.concat(status).toString("utf8"),
  };
}
