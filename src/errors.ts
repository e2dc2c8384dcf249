/**
 * Errors say who must act and how to fix it.
 *
 * - `ConfigError`: the user passed a bad flag or config value; fix the command line or config.
 * - `InputError`: a data file is malformed; names the file, the line and the field.
 * - `SandboxError`: infrastructure failed (not the candidate); `retryable` says whether to try again.
 * - `GraderOutputError`: a grader model produced output that does not follow the protocol.
 * - `InvariantError`: a bug in gagar itself; please report it.
 * - `TaskFaultError`: the work was done, but some tasks cannot be scored (an instance that did not
 *   import, a task whose check found it invalid); the task pack's fault, not the sandbox's or gagar's.
 *
 * The CLI maps user-facing errors (ConfigError, InputError) to exit code 2, TaskFaultError to 3.
 */
export class GagarError extends Error {
  override readonly name: string = "GagarError";
}

export class ConfigError extends GagarError {
  override readonly name = "ConfigError";
}

export interface InputLocation {
  file: string;
  /** 1-based line number, when the input is line-oriented. */
  line?: number;
  /** Dotted field path inside the record, e.g. `candidates.2.passed`. */
  field?: string;
}

export class InputError extends GagarError {
  override readonly name = "InputError";
  constructor(
    readonly location: InputLocation,
    readonly detail: string,
  ) {
    super(`${formatLocation(location)}: ${detail}`);
  }
}

export function formatLocation({ file, line, field }: InputLocation): string {
  let where = file;
  if (line !== undefined) where += `:${line}`;
  if (field) where += ` (field ${field})`;
  return where;
}

export class SandboxError extends GagarError {
  override readonly name = "SandboxError";
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export class GraderOutputError extends GagarError {
  override readonly name = "GraderOutputError";
}

export class InvariantError extends GagarError {
  override readonly name = "InvariantError";
}

export class TaskFaultError extends GagarError {
  override readonly name = "TaskFaultError";
}

/** True for errors caused by what the user gave us (exit code 2), as opposed to our faults. */
export function isUserError(error: unknown): error is ConfigError | InputError {
  return error instanceof ConfigError || error instanceof InputError;
}
