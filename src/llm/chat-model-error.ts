import { GagarError } from "../errors.ts";

/**
 * Why a chat call failed. `connection`, `timeout`, `rate-limit` and `server` are the server's or the
 * network's fault and worth retrying; `client` (4xx other than 429) means the request or the
 * settings are wrong; `protocol` means the server answered with something that is not a chat
 * completion; `aborted` means the caller gave up (its deadline passed).
 */
export type ChatModelErrorKind =
  | "connection"
  | "timeout"
  | "rate-limit"
  | "server"
  | "client"
  | "protocol"
  | "aborted";

/** Infrastructure failure of a chat call: the model server, not the model's behaviour. */
export class ChatModelError extends GagarError {
  override readonly name = "ChatModelError";
  constructor(
    message: string,
    readonly kind: ChatModelErrorKind,
    readonly options: { status?: number; retryAfterMs?: number; attempts?: number } = {},
  ) {
    super(message);
  }

  get retryable(): boolean {
    return (
      this.kind === "connection" ||
      this.kind === "timeout" ||
      this.kind === "rate-limit" ||
      this.kind === "server"
    );
  }

  /** A copy that records how many HTTP requests were made before giving up. */
  withAttempts(attempts: number): ChatModelError {
    return new ChatModelError(this.message, this.kind, { ...this.options, attempts });
  }
}
