import { type ColumnDefinitionNode, type DataTypeNode, GeneratedNode, type KyselyPlugin, OperationNodeTransformer } from "kysely";

/**
 * Migrations are written for SQLite, whose INTEGER is 64 bits and whose AUTOINCREMENT never reuses
 * an id. On PostgreSQL the faithful column is `bigint` (millisecond timestamps overflow `integer`)
 * and an identity column. Translated here, once, so no migration changes what it runs on SQLite.
 */
class SqliteSchemaOnPostgres extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const out = super.transformColumnDefinition(node);
    const type = out.dataType as DataTypeNode;
    const isInteger = type.kind === "DataTypeNode" && type.dataType === "integer";
    if (!isInteger && !out.autoIncrement) return out;
    return {
      ...out,
      dataType: isInteger ? { ...type, dataType: "bigint" } : type,
      ...(out.autoIncrement ? { autoIncrement: false, generated: GeneratedNode.create({ identity: true, byDefault: true }) } : {}),
    } as ColumnDefinitionNode;
  }
}

/** The plugin that gives SQLite-shaped CREATE and ALTER TABLE statements their PostgreSQL types. */
export const sqliteSchemaOnPostgres: KyselyPlugin = {
  // Only schema statements are touched: queries pass as they are, at no cost.
  transformQuery: (args) =>
    args.node.kind === "CreateTableNode" || args.node.kind === "AlterTableNode" ? new SqliteSchemaOnPostgres().transformNode(args.node) : args.node,
  transformResult: async (args) => args.result,
};
