/**
 * A value, or a promise of it. A cache hit answers the value itself: every `async` function and
 * every `await` on the hot paths (the signed API's check, /rpc) allocates a promise and waits a
 * microtask, which cost the signed request more CPU than the checks themselves (docs/benchmarks.md).
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f` of the value: at once when it is there, once it settles when it is a promise (a rejection passes through). */
export function andThen<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
