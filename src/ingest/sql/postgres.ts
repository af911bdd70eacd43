import { textPerCount } from "../../db/dialect/compiled.ts";
import { numbered, rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { type ChainStatements, OUTPUT_COLUMNS, outputParams } from "./statements.ts";

// The statements of the stored chain in PostgreSQL's SQL (what each does: statements.ts), each a
// named prepared statement on every connection.

const TIP = "select hash, height, parent_hash from blocks where network = $1 and status = 'canonical' order by height desc limit 1";
const RANGE = "select hash, height, parent_hash from blocks where network = $1 and status = 'canonical' and height >= $2 and height <= $3 order by height";
const OUTPUTS = textPerCount((n) => `select txid, vout, address, value_raw from watched_outputs where network = $1 and txid in (${numbered(2, n)})`);
const UPSERT = textPerCount(
  (n) =>
    `insert into watched_outputs (${OUTPUT_COLUMNS}) values ${rowsOf(n, 7)} on conflict (network, txid, vout) do update set block_hash = $${7 * n + 1}, height = $${7 * n + 2}`,
);

export const postgresChainStatements: ChainStatements = {
  selectCanonicalTip: (network) => preparedQuery(TIP, [network]),
  selectCanonicalBlocks: (network, fromHeight, toHeight) => preparedQuery(RANGE, [network, fromHeight, toHeight]),
  selectRecordedOutputs: (network, txids) => preparedQuery(OUTPUTS(txids.length), [network, ...txids]),
  upsertOutputs: (rows, blockHash, height) => preparedQuery(UPSERT(rows.length), outputParams(rows, blockHash, height)),
};
