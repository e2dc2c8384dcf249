import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's chromium; tests and benchmarks never download a browser. */
export const CHROMIUM = "/usr/bin/chromium";

/** Why a browser test cannot run here, or undefined when it can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent (apt-get install chromium)`;
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Every request the page made, the document itself included. */
  requests: string[];
}

export interface HeadlessChromium {
  /** Opens a file in a new page and waits for its load event; nothing but the file may load. */
  open(file: string): Promise<OpenedPage>;
  close(): Promise<void>;
}

/**
 * Headless chromium with a fresh profile and everything that phones home turned off. Every request
 * other than the opened file is recorded and aborted, so a page that reaches for the network shows
 * it in `requests` (and fails to load the resource) instead of fetching it.
 */
export async function launchChromium(): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), "gagar-chromium-"));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    async open(file) {
      const page = await context.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      const url = new URL(`file://${file}`).href;
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("request", (r) => requests.push(r.url()));
      await page.route("**/*", (route) =>
        route.request().url() === url ? route.continue() : route.abort("blockedbyclient"),
      );
      await page.goto(url, { waitUntil: "load" });
      return { page, errors, requests };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
