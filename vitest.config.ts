import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Prints which gated suites are skipped here and why (the default reporter shows no reasons).
    globalSetup: ["test/support/skip-notice.ts"],
  },
});
