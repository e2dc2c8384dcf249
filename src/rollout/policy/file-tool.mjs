/**
 * The policy agent's file tools (`read_file`, `write_file`, `str_replace`), run INSIDE the sandbox
 * as the run's unprivileged uid by `file-tools.ts`:
 *
 *   node /gagar/file-tool.mjs /gagar/call.json /workspace
 *
 * Why not plain fs calls on the host: the workspace holds whatever the agent's shell commands left
 * there, including symlinks such as `config.py -> /etc/passwd` or `src -> /root`. Host-side file I/O
 * as root would follow them out of the workspace (docs/security.md §0.4). In here, a link can
 * only reach the sandbox's own view (read-only /usr, a private /tmp), and on top of that every path
 * is resolved and must stay inside /workspace.
 *
 * Plain JavaScript, no imports beyond Node's own: it runs with the host's node binary mounted at
 * /gagar/node and nothing else of gagar in sight. The call file is JSON
 * `{tool, args, readLimitBytes, workspace}`; the answer on stdout is JSON `{ok, output}`. Mistakes of the
 * agent (missing file, text not found, path outside the workspace) are answers with ok = false;
 * anything else that goes wrong leaves stdout without JSON, which the host treats as a broken tool.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  writeSync,
} from "node:fs";
import { posix } from "node:path";

const CALL = JSON.parse(readFileSync(process.argv[2], "utf8"));
/**
 * Where the workspace is, as an argument so that a backend that cannot mount (and rewrites sandbox
 * paths in argv instead) can rewrite it; and the name the agent knows it by, from the call file.
 */
const ROOT = process.argv[3];
const REAL_ROOT = realpathSync(ROOT);
const SHOWN = CALL.workspace;

class ToolError extends Error {}

const ERRNO = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a component of the path is not a directory",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ELOOP: "too many levels of symbolic links",
  EFBIG: "file too large",
  ENOSPC: "no space left on device",
  ENAMETOOLONG: "file name too long",
  ENXIO: "not a regular file",
};

function main() {
  let answer;
  try {
    answer = { ok: true, output: perform(CALL) };
  } catch (error) {
    if (error instanceof ToolError) answer = { ok: false, output: `Error: ${error.message}` };
    else throw error;
  }
  process.stdout.write(JSON.stringify(answer));
}

function perform({ tool, args, readLimitBytes }) {
  switch (tool) {
    case "read_file": {
      const { text, size } = readText(args.path, readLimitBytes);
      if (size === 0) return "(empty file)";
      const listing = numbered(text);
      return size > readLimitBytes
        ? `${listing}\n[file is ${size} bytes; showing the first ${readLimitBytes}. Use shell (e.g. sed -n '100,200p') for the rest.]`
        : listing;
    }
    case "write_file": {
      const target = writablePath(args.path);
      writeText(args.path, target, args.content);
      return `Wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}`;
    }
    case "str_replace": {
      if (args.old === "") throw new ToolError("`old` must not be empty.");
      const { text, size, real } = readText(args.path, readLimitBytes);
      if (size > readLimitBytes) {
        throw new ToolError(
          `${args.path} is ${size} bytes, too large for str_replace (limit ${readLimitBytes}).`,
        );
      }
      const count = text.split(args.old).length - 1;
      if (count !== 1) {
        throw new ToolError(
          `\`old\` must occur exactly once in ${args.path}, found ${count} occurrence${count === 1 ? "" : "s"}. No changes made.`,
        );
      }
      const at = text.indexOf(args.old);
      writeText(args.path, real, text.slice(0, at) + args.new + text.slice(at + args.old.length));
      return `Edited ${args.path}: replaced 1 occurrence.`;
    }
    default:
      throw new Error(`file-tool: unknown tool ${JSON.stringify(tool)}`);
  }
}

/** The absolute sandbox path the agent means; relative paths are relative to /workspace. */
function lexical(path) {
  if (path.includes("\0")) throw new ToolError("the path must not contain NUL bytes.");
  const named = path === SHOWN || path.startsWith(`${SHOWN}/`) ? ROOT + path.slice(SHOWN.length) : path;
  const absolute = posix.resolve(ROOT, named);
  if (!inside(absolute)) throw new ToolError(`${path} is outside ${SHOWN}.`);
  return absolute;
}

function inside(path) {
  return path === ROOT || path.startsWith(`${ROOT}/`);
}

/** Where an existing path really is, after every symlink; it must still be inside /workspace. */
function resolved(path, absolute) {
  let real;
  try {
    real = realpathSync(absolute);
  } catch (error) {
    const link = lstatSync(absolute, { throwIfNoEntry: false });
    if (link?.isSymbolicLink())
      throw new ToolError(`${path} is a symbolic link to a missing target; not followed.`);
    throw fsError(path, error);
  }
  if (!(real === REAL_ROOT || real.startsWith(`${REAL_ROOT}/`)))
    throw new ToolError(`${path} resolves to ${real}, which is outside ${SHOWN}.`);
  return real;
}

function readText(path, limit) {
  const real = resolved(path, lexical(path));
  const fd = open(path, real, constants.O_RDONLY);
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, limit));
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return { text: buffer.subarray(0, filled).toString("utf8"), size, real };
  } finally {
    closeSync(fd);
  }
}

/**
 * The real path to write `path` to. An existing file (or a link to one inside the workspace) is
 * written in place; otherwise the deepest existing ancestor is resolved and checked, and the missing
 * directories are created below it (fresh directories, so no link can sit in between).
 */
function writablePath(path) {
  const absolute = lexical(path);
  if (absolute === ROOT) throw new ToolError(`${path} is the workspace itself, not a file.`);
  if (lstatSync(absolute, { throwIfNoEntry: false })) return resolved(path, absolute);
  const missing = [posix.basename(absolute)];
  let dir = posix.dirname(absolute);
  while (!lstatSync(dir, { throwIfNoEntry: false })) {
    missing.unshift(posix.basename(dir));
    dir = posix.dirname(dir);
  }
  const target = posix.join(resolved(posix.relative(ROOT, dir) || ".", dir), ...missing);
  try {
    mkdirSync(posix.dirname(target), { recursive: true });
  } catch (error) {
    throw fsError(path, error);
  }
  return target;
}

function writeText(path, real, text) {
  const fd = open(path, real, constants.O_WRONLY | constants.O_CREAT);
  try {
    // Truncate only once the target is known to be a regular file (never a device or a FIFO).
    ftruncateSync(fd, 0);
    const data = Buffer.from(text, "utf8");
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written, written);
  } catch (error) {
    throw fsError(path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a resolved path without following a link planted after the check (O_NOFOLLOW) and without
 * blocking on a FIFO (O_NONBLOCK); anything but a regular file is refused.
 */
function open(path, real, flags) {
  let fd;
  try {
    fd = openSync(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    throw fsError(path, error);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new ToolError(`${path} is not a regular file.`);
  }
  return fd;
}

function fsError(path, error) {
  const text = ERRNO[error?.code];
  if (!text) return error;
  return new ToolError(`${path}: ${text}.`);
}

/** `cat -n` style, as in the recorded transcripts. */
function numbered(text) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join("\n");
}

main();
