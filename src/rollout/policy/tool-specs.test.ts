import { describe, expect, it } from "vitest";
import { POLICY_TOOLS, parseToolCall } from "./tool-specs.ts";

const call = (name: string, args: unknown) => ({
  id: "c1",
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

describe("POLICY_TOOLS", () => {
  it("offers the recorded transcripts' tools with their argument names", () => {
    expect(POLICY_TOOLS.map((t) => [t.name, Object.keys(t.parameters.properties as object)])).toEqual([
      ["shell", ["command"]],
      ["read_file", ["path"]],
      ["write_file", ["path", "content"]],
      ["str_replace", ["path", "old", "new"]],
      ["submit", []],
    ]);
  });
});

describe("parseToolCall", () => {
  it("accepts each tool's arguments", () => {
    expect(parseToolCall(call("shell", { command: "ls" }))).toEqual({
      ok: true,
      invocation: { tool: "shell", command: "ls" },
    });
    expect(parseToolCall(call("str_replace", { path: "a.py", old: "x", new: "" }))).toEqual({
      ok: true,
      invocation: { tool: "str_replace", path: "a.py", old: "x", new: "" },
    });
    expect(parseToolCall(call("submit", ""))).toEqual({ ok: true, invocation: { tool: "submit" } });
  });

  it("drops unknown extra keys instead of passing them on", () => {
    expect(parseToolCall(call("read_file", { path: "a", mode: "rw" }))).toEqual({
      ok: true,
      invocation: { tool: "read_file", path: "a" },
    });
  });

  it("tells the model what is wrong: malformed JSON, wrong types, missing keys, unknown tools", () => {
    const bad = (name: string, args: unknown) => {
      const result = parseToolCall(call(name, args));
      if (result.ok) throw new Error(`expected ${name} ${JSON.stringify(args)} to be rejected`);
      return result.error;
    };
    expect(bad("shell", '{"command": "ls"')).toMatch(/^Error: the arguments of shell are not valid JSON/);
    expect(bad("write_file", { path: "a" })).toMatch(/^Error: invalid arguments for write_file: content: /);
    expect(bad("read_file", { path: 3 })).toMatch(/path: .*string/);
    expect(bad("shell", { command: "" })).toContain("command: must not be empty");
    expect(bad("shell", "[1]")).toMatch(/invalid arguments for shell: arguments: /);
    expect(bad("rm_rf", {})).toBe(
      'Error: unknown tool "rm_rf". The tools are: shell, read_file, write_file, str_replace, submit.',
    );
    expect(bad("__proto__", {})).toMatch(/^Error: unknown tool/);
  });
});
