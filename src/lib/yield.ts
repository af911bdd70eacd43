/**
 * Resolves after the event loop has run what was waiting (I/O, timers, other requests). The SQLite
 * driver answers synchronously, so a chain of awaited statements never lets anything else run on its
 * own: long work in several statements yields with this between them.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
