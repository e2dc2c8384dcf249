import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";

/** Whether `Authorization` carries `Bearer <token>`; compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

/** Whether binding to `host` keeps the service on this machine (then a token is optional). */
export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}
