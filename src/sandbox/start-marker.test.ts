import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { outcomeFromStartMarker, START_SCRIPT } from "./start-marker.ts";

const runStart = (argv: string[]) => {
  const result = spawnSync("/bin/sh", ["-c", START_SCRIPT, "gagar-init", ...argv], {
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.output[1], stderr: result.output[2], fd3: result.output[3] };
};

describe("START_SCRIPT", () => {
  it("announces the start, hides fd 3 from the program and passes its exit status through", () => {
    const result = runStart([
      "/bin/sh",
      "-c",
      "if [ -e /proc/$$/fd/3 ]; then echo open; else echo closed; fi; exit 4",
    ]);
    expect(result.status).toBe(4);
    expect(result.fd3).toBe("started\n");
    expect(result.stdout).toBe("closed\n");
  });

  it("reports a missing program without the marker", () => {
    const result = runStart(["/nonexistent/program"]);
    expect(result.status).toBe(127);
    expect(result.fd3).toBe("");
    expect(result.stderr).toContain("command not found in the sandbox");
  });
});

describe("outcomeFromStartMarker", () => {
  it("trusts the exit only after the marker", () => {
    const exit = { exitCode: 1, signal: null };
    expect(outcomeFromStartMarker("started\n", exit)).toEqual(exit);
    expect(outcomeFromStartMarker("", exit)).toBeUndefined();
  });
});
