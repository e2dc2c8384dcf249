/**
 * A tool call that cannot be served as asked (bad path, unknown label, patch that does not apply).
 * It is the model's to handle: the message goes back to it as the tool result, and the session
 * goes on (openai-agents-js does the same with its defaultToolErrorFunction).
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
}
