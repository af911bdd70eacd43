// Builds the `chainwatch` client package in this folder (`bun run build:client`): dist/client.js, the
// SDK in src/client/ bundled into one ES module that imports nothing, and dist/client.d.ts, its types
// in one self-contained declaration file. `npm pack` here then makes a tarball of package.json,
// README.md and dist/ alone (package.json's `files`): nothing of the checkout, its data or its keys.
//
// The SDK reads its request and response types off the daemon's TypeBox schemas with `import type`
// (src/client/types.ts), so its declarations would point into src/. Here each of those types is
// written out in full by the TypeScript checker, and the client's declarations are emitted against
// that expansion and joined into one file, so the package needs nothing the tarball lacks.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dir, "../..");
const SDK = join(ROOT, "src/client");
const TYPES = join(SDK, "types.ts");
const OUT = join(import.meta.dir, "dist");

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  // What the SDK runs on: fetch and Web Crypto, nothing of Bun's or Node's own.
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: [],
  strict: true,
  skipLibCheck: true,
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
};

/** Expands a type with no references outside the SDK: object types written out, aliases of src/client kept by name. */
const EXPAND = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.MultilineObjectLiterals | ts.NodeBuilderFlags.IgnoreErrors;

const fail = (message: string): never => {
  throw new Error(`build:client: ${message}`);
};

const diagnosticsText = (diagnostics: readonly ts.Diagnostic[]) =>
  ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" });

/** Aliases declared outside src/client that a type uses, by name (the checker prints them by name). */
function foreignAliases(checker: ts.TypeChecker, type: ts.Type, found: Map<string, ts.Type>, seen = new Set<ts.Type>()): void {
  if (seen.has(type)) return;
  seen.add(type);
  const alias = type.aliasSymbol;
  const declaredAt = alias?.declarations?.[0]?.getSourceFile().fileName;
  if (alias && declaredAt && !declaredAt.startsWith(`${SDK}/`) && !declaredAt.includes("/node_modules/")) {
    const other = found.get(alias.name);
    if (other && other !== type) fail(`two types outside the SDK are both called ${alias.name}`);
    found.set(alias.name, type);
  }
  const inner: ts.Type[] = [];
  if (type.isUnionOrIntersection()) inner.push(...type.types);
  if (type.aliasTypeArguments) inner.push(...type.aliasTypeArguments);
  if (type.flags & ts.TypeFlags.Object) {
    if ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) inner.push(...checker.getTypeArguments(type as ts.TypeReference));
    for (const p of checker.getPropertiesOfType(type)) inner.push(checker.getTypeOfSymbol(p));
    for (const info of checker.getIndexInfosOfType(type)) inner.push(info.type);
  }
  for (const t of inner) foreignAliases(checker, t, found, seen);
}

/** The packages the schemas' types are made of: every other import is left unresolved. */
const SCHEMA_PACKAGES = /^@sinclair\/typebox(\/|$)/;

/**
 * A host for the program types.ts is expanded in, which follows imports between files of the
 * checkout and into TypeBox, and no further. The schemas' types are TypeBox's over the checkout's
 * constants; the modules that declare them also import Kysely, Node's types and the chain libraries,
 * and parsing those was most of the build's time. A type that did need one would print as `any`
 * (refused by `expandedTypes`) or by a name the declarations' program cannot find (refused there).
 */
function schemaHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, options) =>
    literals.map((literal) =>
      literal.text.startsWith(".") || SCHEMA_PACKAGES.test(literal.text)
        ? ts.resolveModuleName(literal.text, containingFile, options, host, undefined, redirected)
        : { resolvedModule: undefined },
    );
  return host;
}

/**
 * src/client/types.ts with every type written out: its own aliases keep their names and doc
 * comments; the daemon's aliases they use (`PaymentStatus`, `TestEvent`) become local ones.
 */
function expandedTypes(program: ts.Program): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(TYPES) ?? fail(`cannot read ${TYPES}`);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const print = (type: ts.Type) => {
    const text = printer.printNode(ts.EmitHint.Unspecified, checker.typeToTypeNode(type, undefined, EXPAND) ?? fail("a type the checker cannot print"), source);
    return /\bany\b/.test(text) ? fail(`a type of types.ts reads as \`any\`, made of a package the build does not follow: ${text.slice(0, 200)}`) : text;
  };
  const own = new Map<string, string>();
  const foreign = new Map<string, ts.Type>();
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const text = print(type);
    own.set(statement.name.text, text);
    foreignAliases(checker, type, foreign);
    const doc = source.text.slice(statement.getFullStart(), statement.getStart()).trim();
    out.push(`${doc.startsWith("/**") ? `${doc.slice(doc.lastIndexOf("/**"))}\n` : ""}export type ${statement.name.text} = ${text};`);
  }
  for (const [name, type] of foreign) {
    const text = print(type);
    // types.ts may re-export one of them under its own name (PaymentStatus): the same type, written once.
    if (own.has(name)) {
      if (own.get(name) !== text) fail(`types.ts's ${name} is not the daemon's ${name}`);
      continue;
    }
    out.push(`type ${name} = ${text};`);
  }
  return `${out.join("\n")}\n`;
}

/**
 * The SDK's declarations, one text per file, emitted against the expanded types.ts. Every other file
 * `parsed` (the program types.ts was expanded in) already holds is taken from it as parsed there:
 * the lib files, lib.dom.d.ts most of all, are not parsed a second time.
 */
function declarations(types: string, parsed: ts.Program): Map<string, string> {
  const files = readdirSync(SDK).filter((f) => f.endsWith(".ts")).map((f) => join(SDK, f));
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === TYPES ? types : readFile(name));
  host.getSourceFile = (name, version, onError) =>
    name === TYPES ? ts.createSourceFile(name, types, version) : (parsed.getSourceFile(name) ?? getSourceFile(name, version, onError));
  const program = ts.createProgram(files, { ...COMPILER_OPTIONS, declaration: true, emitDeclarationOnly: true, noEmit: false }, host);
  const problems = ts.getPreEmitDiagnostics(program);
  if (problems.length > 0) fail(`the SDK does not compile on its own:\n${diagnosticsText(problems)}`);
  const out = new Map<string, string>();
  const emitted = program.emit(undefined, (name, text) => out.set(name.replace(/\.d\.ts$/, ".ts"), text), undefined, true);
  if (emitted.emitSkipped) fail(diagnosticsText(emitted.diagnostics));
  for (const f of files) if (!out.has(f)) fail(`no declarations for ${f}`);
  return out;
}

/** The name a top-level declaration gives, or null for one that gives none. */
function declaredName(statement: ts.Statement): string | null {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText()).join(",");
  const name = (statement as ts.DeclarationStatement).name;
  return name && ts.isIdentifier(name) ? name.text : null;
}

/**
 * One declaration file from the per-file ones: imports between the SDK's files dropped, every
 * declaration kept without its `export`, and one export list of exactly what src/client/index.ts
 * exports, so no helper that the JavaScript does not export is typed as if it were.
 */
function joined(files: Map<string, string>): string {
  const index = join(SDK, "index.ts");
  const body: string[] = [];
  const declared = new Map<string, string>();
  const exported: string[] = [];
  const exportsOf = (file: string): string[] => {
    const sf = ts.createSourceFile(file, files.get(file) ?? fail(`no file ${file}`), ts.ScriptTarget.ES2022, true);
    return sf.statements.flatMap((s) => (ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ? [declaredName(s) ?? ""] : []));
  };
  for (const [file, text] of files) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    for (const statement of sf.statements) {
      const from = (statement as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier;
      const target = from && ts.isStringLiteral(from) ? join(SDK, from.text.replace(/\.js$/, ".ts")) : null;
      if (from && !(target && files.has(target))) fail(`${file} imports ${from.getText()}, which is not part of the SDK`);
      if (ts.isImportDeclaration(statement)) continue;
      if (ts.isExportDeclaration(statement)) {
        if (file !== index) {
          if (from || (statement.exportClause && ts.isNamedExports(statement.exportClause) && statement.exportClause.elements.length > 0))
            fail(`${file}: only index.ts re-exports`);
          continue; // `export {};`
        }
        const clause = statement.exportClause;
        if (!clause) exported.push(...exportsOf(target as string));
        else if (ts.isNamedExports(clause)) exported.push(...clause.elements.map((e) => (e.propertyName ? fail(`index.ts renames ${e.name.text}`) : e.name.text)));
        else fail("index.ts has an `export * as` the build does not join");
        continue;
      }
      const name = declaredName(statement);
      if (name !== null) {
        const other = declared.get(name);
        if (other) fail(`${name} is declared by both ${other} and ${file}`);
        declared.set(name, file);
      }
      const leading = text.slice(statement.getFullStart(), statement.getStart(sf));
      body.push(`${leading.replace(/^\n+/, "")}${statement.getText(sf).replace(/^export (?=declare |type |interface |class |function |const |abstract )/, "")}`);
    }
  }
  for (const name of exported) if (!declared.has(name)) fail(`index.ts exports ${name}, which nothing declares`);
  // An inferred type may name another file's type inline (`import("./types.ts").WatchEvent`): one file now.
  const text = body.join("\n").replace(/\bimport\("\.\/[a-z-]+\.(?:ts|js)"\)\./g, "");
  if (/\bimport\(|\/\/\/ <reference/.test(text)) fail("a declaration still refers to another file");
  return `${text}\nexport { ${exported.join(", ")} };\n`;
}

/** Writes dist/client.js and dist/client.d.ts; answers their paths. */
export async function buildClient(): Promise<string[]> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const built = await Bun.build({ entrypoints: [join(SDK, "index.ts")], target: "node", format: "esm" });
  if (!built.success || built.outputs.length !== 1) fail(built.logs.map(String).join("\n"));
  const js = join(OUT, "client.js");
  writeFileSync(js, await built.outputs[0].text());
  const dts = join(OUT, "client.d.ts");
  const header = "// chainwatch's TypeScript client: its types, written out in full by packages/client/build.ts.\n";
  const program = ts.createProgram([TYPES], COMPILER_OPTIONS, schemaHost());
  writeFileSync(dts, header + joined(declarations(expandedTypes(program), program)));
  return [js, dts];
}

if (import.meta.main) for (const path of await buildClient()) console.log(`wrote ${path.slice(ROOT.length + 1)}`);
