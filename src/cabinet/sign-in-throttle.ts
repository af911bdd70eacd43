import type { Clock } from "../lib/clock.ts";
import type { Explained } from "../lib/error-codes.ts";
import { FAILURES } from "../lib/failures.ts";
import { parseIp } from "../net/ip.ts";

/** Failed sign-ins a client may make within the window before it must wait (docs/cabinet.md). */
export const SIGN_IN_FAILURE_LIMIT = 10;
export const SIGN_IN_WINDOW_MS = 60_000;
/** Clients remembered at most; past that the one remembered longest is forgotten first. */
export const SIGN_IN_MAX_CLIENTS = 50_000;

/**
 * Failed sign-in attempts per client: a link that is unknown, used or expired, opened or posted.
 * A client with `limit` failures in the last `windowMs` waits until the oldest of them is that
 * old; every attempt it makes meanwhile is refused before any link is looked up, so a guesser
 * learns nothing, not even from a link that would work. Successes never count. Per daemon, in
 * memory, timed on the monotonic clock: a step of the wall clock neither forgives nor prolongs a wait.
 */
export type SignInThrottle = {
  /** Milliseconds until `client` may try again; 0 when it may now. */
  waitMs(client: string): number;
  /** Records a failed attempt of `client`. */
  failed(client: string): void;
};

export function createSignInThrottle(opts: { clock: Clock; limit?: number; windowMs?: number; maxClients?: number }): SignInThrottle {
  const limit = opts.limit ?? SIGN_IN_FAILURE_LIMIT;
  const windowMs = opts.windowMs ?? SIGN_IN_WINDOW_MS;
  const maxClients = opts.maxClients ?? SIGN_IN_MAX_CLIENTS;
  // Failure times per client, oldest first, never more than `limit` (a waiting client is not counted further).
  const failures = new Map<string, number[]>();

  /** The client's failures still inside the window at `now`; a client with none is forgotten. */
  const live = (client: string, now: number): number[] => {
    const stamps = failures.get(client);
    if (!stamps) return [];
    while (stamps.length > 0 && stamps[0] <= now - windowMs) stamps.shift();
    if (stamps.length === 0) failures.delete(client);
    return stamps;
  };

  return {
    waitMs(client) {
      const now = opts.clock.monotonic();
      const stamps = live(client, now);
      return stamps.length >= limit ? stamps[0] + windowMs - now : 0;
    },
    failed(client) {
      const now = opts.clock.monotonic();
      const stamps = live(client, now);
      if (!failures.has(client)) {
        // Bounded memory under a flood of addresses: Map order is insertion order, so the first key
        // is the client remembered longest.
        if (failures.size >= maxClients) failures.delete(failures.keys().next().value as string);
        failures.set(client, stamps);
      }
      stamps.push(now);
      if (stamps.length > limit) stamps.shift();
    },
  };
}

/**
 * The key a client's failures count under: its IP address, an IPv6 client by its /64 (what one
 * host or home network is usually given, so stepping through its own addresses gains nothing).
 * A client without a known address (no socket peer, no trusted X-Forwarded-For) shares one key.
 */
export function throttleKey(ip: string | null): string {
  if (ip === null || ip === "") return "unknown";
  const parsed = parseIp(ip);
  if (!parsed) return `text:${ip.slice(0, 64)}`;
  return parsed.version === 4 ? `v4:${parsed.value}` : `v6:${parsed.value >> 64n}/64`;
}

/** A client refused while it waits out the throttle: the sentence says how long, `retryAfterSeconds` the same for the header. */
export type SignInThrottled = Explained<"SIGN_IN_THROTTLED"> & { retryAfterSeconds: number };

/** The refusal of a client that must wait `waitMs` more, in whole seconds (at least 1). */
export function signInThrottled(waitMs: number): SignInThrottled {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const error = `${FAILURES.SIGN_IN_THROTTLED.message} Try again in ${seconds} ${seconds === 1 ? "second" : "seconds"}.`;
  return { ok: false, code: "SIGN_IN_THROTTLED", error, retryAfterSeconds: seconds };
}
