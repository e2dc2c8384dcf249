// The little language the rollout specs (scripts/examples/tasks/<task-id>/rollouts.mjs) are written in.
// A rollout is a list of agent steps; each step is one assistant turn (optional text + one tool call).
// generate.mjs replays the steps in a scratch git checkout of the task's repo, records the real tool
// output, and takes the final `git diff` as the rollout's patch.

/** Run a shell command at the workspace root. `expectExit` (optional) is asserted by the generator. */
export const sh = (thought, command, opts = {}) => ({ tool: "shell", thought, args: { command }, ...opts });

export const read = (thought, path) => ({ tool: "read_file", thought, args: { path } });

/** `content` is a string or file("…") — a file under the task spec's files/ directory. */
export const write = (thought, path, content) => ({ tool: "write_file", thought, args: { path, content } });

/** Replace exactly one occurrence; `{ expectError: true }` records a failing edit (the agent then retries). */
export const replace = (thought, path, old, neu, opts = {}) => ({
  tool: "str_replace",
  thought,
  args: { path, old, new: neu },
  ...opts,
});

export const submit = (thought) => ({ tool: "submit", thought, args: {} });

/** A file variant stored under scripts/examples/tasks/<task-id>/files/<rel>. */
export const file = (rel) => ({ $file: rel });

/**
 * Strip the common leading indentation (and a leading newline) of a multi-line literal, then indent every
 * non-blank line by `indent` spaces — e.g. dedent(`…`, 4) for a snippet from inside a function body. A
 * whitespace-only last line (the one holding the closing backtick) becomes empty, so the snippet ends in "\n".
 */
export function dedent(s, indent = 0) {
  const lines = s.replace(/^\n/, "").split("\n");
  if (lines.length && lines.at(-1).trim() === "") lines[lines.length - 1] = "";
  const indents = lines.filter((l) => l.trim() !== "").map((l) => l.match(/^ */)[0].length);
  const n = indents.length ? Math.min(...indents) : 0;
  const pad = " ".repeat(indent);
  return lines.map((l) => (l.trim() === "" ? "" : pad + l.slice(n))).join("\n");
}
