import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ConfigError } from "../errors.ts";

/**
 * An output that appears whole or not at all: lines go to a temp file beside the target, which is
 * renamed over it on `commit()`. `abort()` (or a crash) leaves no target behind.
 * With `path` undefined it writes straight to stdout.
 */
export class AtomicOutput {
  private readonly tmp: string | undefined;
  private fd: number | undefined;
  private buffer: string[] = [];
  private buffered = 0;

  constructor(private readonly path: string | undefined) {
    if (path === undefined) return;
    this.tmp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(4).toString("hex")}`);
    try {
      this.fd = openSync(this.tmp, "wx", 0o644);
    } catch (e) {
      // Commands check their outputs before working (output-paths.ts); this is the folder changing since.
      throw new ConfigError(
        `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }

  write(text: string): void {
    this.buffer.push(text);
    this.buffered += text.length;
    if (this.buffered >= 1 << 16) this.flush();
  }

  private flush(): void {
    if (!this.buffer.length) return;
    const chunk = this.buffer.join("");
    this.buffer = [];
    this.buffered = 0;
    if (this.fd === undefined) process.stdout.write(chunk);
    else writeSync(this.fd, chunk);
  }

  commit(): void {
    this.flush();
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
    try {
      renameSync(this.tmp!, this.path!);
    } catch (e) {
      rmSync(this.tmp!, { force: true });
      throw new ConfigError(
        `cannot write ${this.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }

  abort(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.tmp!, { force: true });
  }
}

/** Runs `fill` against an AtomicOutput, committing on success and aborting on any error. */
export async function writeAtomically<T>(
  path: string | undefined,
  fill: (out: AtomicOutput) => Promise<T> | T,
): Promise<T> {
  const out = new AtomicOutput(path);
  try {
    const result = await fill(out);
    out.commit();
    return result;
  } catch (e) {
    out.abort();
    throw e;
  }
}
