import type { RedisOptions } from "bullmq";
import { ConfigError } from "../errors.ts";

/**
 * ioredis options from `redis://[user[:password]@]host[:port][/db]` (or `rediss://` for TLS).
 * The password is never echoed in errors.
 */
export function redisOptions(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`--queue: "${redact(url)}" is not a URL; expected redis://host:port[/db]`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new ConfigError(`--queue: expected a redis:// or rediss:// URL, got ${parsed.protocol}//…`);
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new ConfigError(`--queue: the database in "${redact(url)}" must be a number (/0, /1, …)`);
  const options: RedisOptions = {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    db: db ? Number(db) : 0,
  };
  if (parsed.username) options.username = decodeURIComponent(parsed.username);
  if (parsed.password) options.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === "rediss:") options.tls = {};
  return options;
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
