import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect/detect.ts";

/**
 * Reorg-aware storage (docs/chains.md). Blocks get a status: `canonical`, `orphaned` (replaced by a
 * reorg, kept for the record) or `rewound` (set aside by `follow rewind` until the chain is read
 * again). At most one canonical block per (network, height); the tip is the highest of them.
 * Events remember their block, so a reorg finds the events to retract by height. Deliveries can be
 * `held` until their block reaches the account's min_confirmations.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("blocks").addColumn("status", "text", (c) => c.notNull().defaultTo("canonical")).execute();
  // Before reorgs were understood, a second hash at a stored height was stored beside the first:
  // the newest one of each height stays canonical, so the unique index below can be built.
  await sql`update blocks set status = 'orphaned' where exists (
    select 1 from blocks as b where b.network = blocks.network and b.height = blocks.height
      and (b.created_at > blocks.created_at or (b.created_at = blocks.created_at and b.hash > blocks.hash)))`.execute(db);
  // Partial: queries must spell `status = 'canonical'` as a literal for SQLite to use it.
  await db.schema
    .createIndex("blocks_canonical_height")
    .on("blocks")
    .columns(["network", "height"])
    .unique()
    .where(sql.ref("status"), "=", sql.lit("canonical"))
    .execute();
  // Rewound blocks are few and usually none: each batch probes for them cheaply.
  await db.schema
    .createIndex("blocks_rewound_height")
    .on("blocks")
    .columns(["network", "height"])
    .where(sql.ref("status"), "=", sql.lit("rewound"))
    .execute();

  await db.schema.alterTable("events").addColumn("block_height", "bigint").execute();
  await db.schema.alterTable("events").addColumn("block_hash", "text").execute();
  // Events stored before this migration: their block is in the body, and every body now says
  // whether it was removed.
  // Only SQLite databases can hold events from before this migration: PostgreSQL support came
  // later, so a PostgreSQL database runs this while `events` is still empty.
  if (!isPostgres(db)) {
    await sql`update events set block_height = json_extract(body, '$.block_height'), block_hash = json_extract(body, '$.block_hash'),
      body = json_set(body, '$.removed', json('false'))`.execute(db);
  }
  // A reorg reads the events of the orphaned heights; heights grow, so the index only appends.
  await db.schema.createIndex("events_network_block").on("events").columns(["network", "block_height"]).execute();

  await db.schema.alterTable("deliveries").addColumn("hold_until_height", "bigint").execute();
  // Released as the tip advances: one range read over held rows only.
  await db.schema
    .createIndex("deliveries_held")
    .on("deliveries")
    .columns(["network", "hold_until_height"])
    .where(sql.ref("status"), "=", sql.lit("held"))
    .execute();
  // A reorg finds the deliveries of orphaned events; event ids are time-ordered, so inserts append.
  await db.schema.createIndex("deliveries_event").on("deliveries").column("event_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("deliveries_event").execute();
  await db.schema.dropIndex("deliveries_held").execute();
  await db.schema.alterTable("deliveries").dropColumn("hold_until_height").execute();
  await db.schema.dropIndex("events_network_block").execute();
  await db.schema.alterTable("events").dropColumn("block_hash").execute();
  await db.schema.alterTable("events").dropColumn("block_height").execute();
  await db.schema.dropIndex("blocks_rewound_height").execute();
  await db.schema.dropIndex("blocks_canonical_height").execute();
  await db.schema.alterTable("blocks").dropColumn("status").execute();
}
