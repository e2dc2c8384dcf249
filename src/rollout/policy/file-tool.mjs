/**
 * The policy agent's file tools (`read_file`, `write_file`, `str_replace`), run INSIDE the sandbox
 * as the run's unprivileged uid by `file-tools.ts`:
 *
 *   node /gagar/file-tool.mjs /gagar/call.json /workspace
 *
 * Why not plain fs calls on the host: the workspace holds whatever the agent's shell commands left
 * there, including symlinks such as `config.py -> /etc/passwd` or `src -> /root`. Host-side file I/O
 * as root would follow them out of the workspace (docs/security.md §0.4). In here, a link can only reach
 * the sandbox's own view (read-only /usr, a private /tmp), and on top of that every path is resolved
 * and must stay inside /workspace.
 *
 * Plain JavaScript, no imports beyond Node's own: it runs with the host's node binary mounted at
 * /gagar/node and nothing else of gagar in sight. The call file is JSON
 * `{tool, args, readLimitBytes, workspace}`; the answer on stdout is JSON `{ok, output}`. Every
 * failure of a call — the agent's mistakes (missing file, a path through a regular file, a directory,
 * text not found, a path outside the workspace) and anything unexpected — is an answer with
 * ok = false, so that the model can correct itself. Only a process that dies (killed at its time
 * limit, out of memory) leaves stdout without JSON; the host reports that to the model too.
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
import { pathToFileURL } from "node:url";

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
  EDQUOT: "disk quota exceeded",
  ENAMETOOLONG: "file name too long",
  ENXIO: "not a regular file",
  EINVAL: "invalid argument",
  EMFILE: "too many open files",
  EIO: "input/output error",
};

/**
 * Answers one call against the workspace at `root` (shown to the agent as `call.workspace`). Never
 * throws: whatever goes wrong becomes `{ok: false, output: "Error: …"}`.
 */
export function answerCall(call, root) {
  try {
    return { ok: true, output: perform(new Workspace(root, call?.workspace ?? root), call) };
  } catch (error) {
    return { ok: false, output: `Error: ${describe(error, call)}` };
  }
}

function describe(error, call) {
  if (error instanceof ToolError) return error.message;
  const code = typeof error?.code === "string" ? error.code : undefined;
  const path = typeof call?.args?.path === "string" ? call.args.path : undefined;
  if (code && path !== undefined) return `${path}: ${ERRNO[code] ?? code}.`;
  // Not expected: still an answer the model can act on, with what happened.
  return `${call?.tool ?? "the tool"} failed: ${String(error?.message ?? error).slice(0, 500)}`;
}

class Workspace {
  constructor(root, shown) {
    this.root = root;
    this.realRoot = realpathSync(root);
    this.shown = shown;
  }

  /** The absolute sandbox path the agent means; relative paths are relative to the workspace. */
  lexical(path) {
    if (typeof path !== "string" || path === "") throw new ToolError("the path must be a non-empty string.");
    if (path.includes("\0")) throw new ToolError("the path must not contain NUL bytes.");
    const shown = this.shown;
    const named =
      path === shown || path.startsWith(`${shown}/`) ? this.root + path.slice(shown.length) : path;
    const absolute = posix.resolve(this.root, named);
    if (!(absolute === this.root || absolute.startsWith(`${this.root}/`)))
      throw new ToolError(`${path} is outside ${shown}.`);
    return absolute;
  }

  /** Where an existing path really is, after every symlink; it must still be inside the workspace. */
  resolved(path, absolute) {
    let real;
    try {
      real = realpathSync(absolute);
    } catch (error) {
      if (error?.code === "ENOENT" && entry(path, absolute)?.isSymbolicLink())
        throw new ToolError(`${path} is a symbolic link to a missing target; not followed.`);
      throw fsError(path, error);
    }
    if (!(real === this.realRoot || real.startsWith(`${this.realRoot}/`)))
      throw new ToolError(`${path} resolves to ${real}, which is outside ${this.shown}.`);
    return real;
  }

  readText(path, limit) {
    const real = this.resolved(path, this.lexical(path));
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
    } catch (error) {
      throw fsError(path, error);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The real path to write `path` to. An existing file (or a link to one inside the workspace) is
   * written in place; otherwise the deepest existing ancestor is resolved and checked, and the missing
   * directories are created below it (fresh directories, so no link can sit in between).
   */
  writablePath(path) {
    const absolute = this.lexical(path);
    if (absolute === this.root) throw new ToolError(`${path} is the workspace itself, not a file.`);
    if (entry(path, absolute)) return this.resolved(path, absolute);
    const missing = [posix.basename(absolute)];
    let dir = posix.dirname(absolute);
    while (!entry(path, dir)) {
      missing.unshift(posix.basename(dir));
      dir = posix.dirname(dir);
    }
    const target = posix.join(this.resolved(posix.relative(this.root, dir) || ".", dir), ...missing);
    try {
      mkdirSync(posix.dirname(target), { recursive: true });
    } catch (error) {
      throw fsError(path, error);
    }
    return target;
  }
}

function perform(ws, { tool, args, readLimitBytes }) {
  switch (tool) {
    case "read_file": {
      const { text, size } = ws.readText(args.path, readLimitBytes);
      if (size === 0) return "(empty file)";
      const listing = numbered(text);
      return size > readLimitBytes
        ? `${listing}\n[file is ${size} bytes; showing the first ${readLimitBytes}. Use shell (e.g. sed -n '100,200p') for the rest.]`
        : listing;
    }
    case "write_file": {
      const target = ws.writablePath(args.path);
      writeText(args.path, target, args.content);
      return `Wrote ${Buffer.byteLength(args.content)} bytes to ${args.path}`;
    }
    case "str_replace": {
      if (args.old === "") throw new ToolError("`old` must not be empty.");
      const { text, size, real } = ws.readText(args.path, readLimitBytes);
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
      throw new ToolError(`unknown file tool ${JSON.stringify(tool)}.`);
  }
}

/** lstat of an absolute path: undefined when nothing is there; other failures name the agent's path. */
function entry(path, absolute) {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    throw fsError(path, error);
  }
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
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    throw new ToolError(
      info.isDirectory()
        ? `${path} is a directory, not a file. Use shell (e.g. ls ${path}) to list it.`
        : `${path} is not a regular file.`,
    );
  }
  return fd;
}

function fsError(path, error) {
  const text = ERRNO[error?.code];
  return text ? new ToolError(`${path}: ${text}.`) : error;
}

/** `cat -n` style, as in the recorded transcripts. */
function numbered(text) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join("\n");
}

/**
 * Reads the call, answers it on stdout. Where the workspace is comes as an argument, so that a backend
 * that cannot mount (and rewrites sandbox paths in argv instead) can rewrite it.
 */
function main() {
  let answer;
  try {
    answer = answerCall(JSON.parse(readFileSync(process.argv[2], "utf8")), process.argv[3]);
  } catch (error) {
    answer = { ok: false, output: `Error: the tool could not read its call: ${error?.message ?? error}` };
  }
  process.stdout.write(JSON.stringify(answer));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
