import { NL, type PatchBytes } from "./git-bytes.ts";
import type { Name } from "./git-names.ts";
import { DiffParseError, type Hunk } from "./types.ts";

/** What the reader of a patch (parse.ts) carries from one part of a file diff to the next, as git's apply.c does. */

/** git's struct patch, as far as reading goes (apply.c). Modes: undefined until a header line names one. */
export interface RawPatch {
  oldName: Name | null;
  newName: Name | null;
  defName: Name | null;
  /** 1, 0, or -1 when a plain diff leaves it to the hunks or the tree. */
  isNew: number;
  isDelete: number;
  isRename: boolean;
  isCopy: boolean;
  oldMode: number | undefined;
  newMode: number | undefined;
  isBinary: boolean;
  traditional: boolean;
  /** Where the first line that made this a creation, deletion, rename or copy is (-1: none yet). */
  extensionAt: number;
  hunks: Hunk[];
}

export interface ReadState {
  b: PatchBytes;
  /** -p: components stripped from names; git guesses 0 once, from the first plain diff that allows it. */
  p: number;
  pKnown: boolean;
}

export function lineAt(b: PatchBytes, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < b.length; i++) if (b.at(i) === NL) line++;
  return line;
}

export function fail(state: ReadState, pos: number, message: string): never {
  throw new DiffParseError(lineAt(state.b, pos), message);
}

export function freshPatch(): RawPatch {
  return {
    oldName: null,
    newName: null,
    defName: null,
    isNew: -1,
    isDelete: -1,
    isRename: false,
    isCopy: false,
    oldMode: undefined,
    newMode: undefined,
    isBinary: false,
    traditional: false,
    extensionAt: -1,
    hunks: [],
  };
}

export function show(name: Name | null): string {
  return name === null ? "(null)" : Buffer.from(name).toString("utf8");
}
