import type { EventList, EventsQuery, WatchEvent } from "./types.ts";

/**
 * Every event the filters select, oldest first, fetched a page at a time: each page's `next_after`
 * becomes the next request's `after` until the daemon answers null. Events stored while the loop
 * runs are included when they sort after the cursor. Stop early with `break`; nothing is left open.
 */
export async function* followEvents(listPage: (query: EventsQuery) => Promise<EventList>, query: EventsQuery = {}): AsyncGenerator<WatchEvent, void, undefined> {
  let after = query.after;
  for (;;) {
    const page = await listPage({ ...query, after });
    yield* page.events;
    // An empty page ends the walk too, whatever the cursor says: it cannot move on without events.
    if (page.next_after === null || page.events.length === 0) return;
    after = page.next_after;
  }
}
