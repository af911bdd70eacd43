import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { marks, rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { type ChainStatements, OUTPUT_COLUMNS, outputParams } from "./statements.ts";

// The statements of the stored chain in SQLite's SQL (what each does: statements.ts). `?` placeholders.

const TIP = "select hash, height, parent_hash from blocks where network = ? and status = 'canonical' order by height desc limit 1";
const RANGE = "select hash, height, parent_hash from blocks where network = ? and status = 'canonical' and height >= ? and height <= ? order by height";
const OUTPUTS = textPerCount((n) => `select txid, vout, address, value_raw from watched_outputs where network = ? and txid in (${marks(n)})`);
const UPSERT = textPerCount(
  (n) => `insert into watched_outputs (${OUTPUT_COLUMNS}) values ${rowsOf(n, 7)} on conflict (network, txid, vout) do update set block_hash = ?, height = ?`,
);

export const sqliteChainStatements: ChainStatements = {
  selectCanonicalTip: (network) => compiled(TIP, [network]),
  selectCanonicalBlocks: (network, fromHeight, toHeight) => compiled(RANGE, [network, fromHeight, toHeight]),
  selectRecordedOutputs: (network, txids) => compiled(OUTPUTS(txids.length), [network, ...txids]),
  upsertOutputs: (rows, blockHash, height) => compiled(UPSERT(rows.length), outputParams(rows, blockHash, height)),
};
