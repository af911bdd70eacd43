// Which set-ups a benchmark compares, from its command-line flags.
//
//   (no flag), --database sqlite      one daemon on SQLite: the bench's original run and output
//   --database postgres [--daemons N] one daemon on SQLite, one on PostgreSQL and N on PostgreSQL,
//                                     side by side in one run (N defaults to 1)
//
// SQLite is one daemon by design (docs/operations.md), so `--daemons` above 1 needs PostgreSQL.

export type DatabaseKind = "sqlite" | "postgres";
export type Scenario = { database: DatabaseKind; daemons: number };

/** Plenty for a 2-core box; more daemons only queue for the same CPU. */
export const MAX_DAEMONS = 16;

export type ParsedFlags = { ok: true; scenarios: Scenario[]; compare: boolean } | { ok: false; error: string };

export function parseScenarioFlags(argv: string[]): ParsedFlags {
  let database: string | undefined;
  let daemons: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name !== "--database" && name !== "--daemons") return { ok: false, error: `unknown argument ${JSON.stringify(arg)} (flags: --database sqlite|postgres, --daemons N)` };
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") return { ok: false, error: `${name} needs a value` };
    if (name === "--database") database = value;
    else daemons = value;
  }

  if (database !== undefined && database !== "sqlite" && database !== "postgres")
    return { ok: false, error: `--database must be sqlite or postgres, not ${JSON.stringify(database)}` };
  let n = 1;
  if (daemons !== undefined) {
    if (!/^[0-9]+$/.test(daemons)) return { ok: false, error: `--daemons must be a whole number from 1 to ${MAX_DAEMONS}, not ${JSON.stringify(daemons)}` };
    n = Number(daemons);
    if (n < 1 || n > MAX_DAEMONS) return { ok: false, error: `--daemons must be from 1 to ${MAX_DAEMONS}, not ${n}` };
    if (database !== "postgres" && n > 1)
      return { ok: false, error: `--daemons ${n} needs --database postgres (SQLite is one daemon by design)` };
  }

  if (database !== "postgres") return { ok: true, scenarios: [{ database: "sqlite", daemons: 1 }], compare: false };
  const scenarios: Scenario[] = [
    { database: "sqlite", daemons: 1 },
    { database: "postgres", daemons: 1 },
  ];
  if (n > 1) scenarios.push({ database: "postgres", daemons: n });
  return { ok: true, scenarios, compare: true };
}

/** Parses `process.argv`, or prints the problem and exits 2. */
export function scenariosFromArgv(argv: string[], usage: string): { scenarios: Scenario[]; compare: boolean } {
  const parsed = parseScenarioFlags(argv);
  if (!parsed.ok) {
    console.error(`${parsed.error}\nusage: ${usage} [--database sqlite|postgres] [--daemons N]`);
    process.exit(2);
  }
  return parsed;
}

export function scenarioLabel(s: Scenario): string {
  return `${s.daemons} × ${s.database === "sqlite" ? "SQLite" : "PostgreSQL"}`;
}
