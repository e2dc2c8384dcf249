import { GagarError } from "../../errors.ts";
import { ChatModelError } from "../../llm/chat-model-error.ts";

/**
 * The policy's model server failed past the client's retries while a rollout was running. An
 * infrastructure error: the group is not generated (a made-up rollout would train on noise); fix
 * or restart the server, then rerun the step. `retryable` is the underlying error's.
 */
export class PolicyServerError extends GagarError {
  override readonly name = "PolicyServerError";
  readonly retryable: boolean;

  constructor(modelId: string, rolloutId: string, cause: ChatModelError) {
    super(
      `policy model server failed for model "${modelId}" in rollout ${rolloutId} (${cause.kind}): ${cause.message}`,
      { cause },
    );
    this.retryable = cause.retryable;
  }

  static wrap(error: unknown, modelId: string, rolloutId: string): unknown {
    return error instanceof ChatModelError ? new PolicyServerError(modelId, rolloutId, error) : error;
  }
}
