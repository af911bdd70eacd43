import { escapeHtml } from "../../lib/html.ts";

// The API reference at GET /openapi: one self-contained HTML page rendered from the OpenAPI
// document, with inline CSS and no script, so it works on a box without internet and runs nothing
// fetched from elsewhere. A viewer bundle (Scalar, Swagger UI) would add megabytes to the binary
// for interactivity an admin reading the reference does not need.

type Json = Record<string, any>;

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

const esc = (s: unknown) => escapeHtml(String(s ?? ""));

/** `code` spans for backticks in the document's prose, everything else escaped. */
const prose = (s: unknown) => esc(s).replace(/`([^`]+)`/g, "<code>$1</code>");

const anchor = (...parts: string[]) => parts.join("-").replace(/[^A-Za-z0-9_-]+/g, "_");

function schemaLink(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop() as string;
    return `<a href="#${anchor("schema", name)}">${esc(name)}</a>`;
  }
  if (Array.isArray(schema.oneOf)) return schema.oneOf.map(schemaLink).join(" or ");
  return `<pre>${schemaJson(schema)}</pre>`;
}

/** Pretty JSON of a schema, with `$ref`s turned into links to the schema section. */
function schemaJson(schema: unknown): string {
  return esc(JSON.stringify(schema, null, 2)).replace(
    /&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
    (_, name) => `<a href="#${anchor("schema", name)}">&quot;#/components/schemas/${name}&quot;</a>`,
  );
}

function authentication(op: Json, doc: Json): string {
  const security: Json[] = op.security ?? doc.security ?? [];
  if (security.length === 0) return "none";
  if (security.some((s) => "IngestToken" in s)) return "<code>Authorization: Bearer &lt;ingest.token&gt;</code>";
  return "signed: <code>X-Api-Key</code>, <code>X-Timestamp</code>, <code>X-Signature</code>";
}

function parameters(params: Json[] | undefined): string {
  if (!params?.length) return "";
  const rows = params.map(
    (p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? "required" : "optional"}</td><td>${prose(p.description ?? p.schema?.description ?? "")}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th></th><th>meaning</th></tr>${rows.join("")}</table>`;
}

function body(requestBody: Json | undefined): string {
  const content = requestBody?.content?.["application/json"];
  return content ? `<h4>Request body (JSON)</h4>${schemaLink(content.schema)}` : "";
}

function responseTable(responses: Json | undefined): string {
  if (!responses) return "";
  const rows = Object.entries(responses).map(
    ([status, r]: [string, Json]) => `<tr><td>${esc(status)}</td><td>${prose(r.description)}</td><td>${schemaLink(r.content?.["application/json"]?.schema)}</td></tr>`,
  );
  return `<h4>Responses</h4><table><tr><th>status</th><th>meaning</th><th>body</th></tr>${rows.join("")}</table>`;
}

function operation(id: string, title: string, op: Json, doc: Json): string {
  return `<section id="${id}"><h3><code>${esc(title)}</code></h3><p>${prose(op.summary)}</p>${op.description ? `<p>${prose(op.description)}</p>` : ""}
<p>Authentication: ${authentication(op, doc)}</p>${parameters(op.parameters)}${body(op.requestBody)}${responseTable(op.responses)}</section>`;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1d1d1f}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f5f5f7;padding:.6rem;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #ddd;margin-top:1.5rem}h3 code{font-size:16px}nav li{list-style:none}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}pre{background:#222}td,th,section{border-color:#444}a{color:#8ab4f8}}`;

/** The whole reference page for an OpenAPI document. */
export function renderReferencePage(doc: Json): string {
  const ops: { tag: string; id: string; title: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const m of METHODS) {
      const op = item[m];
      if (op) ops.push({ tag: op.tags?.[0] ?? "other", id: anchor("op", m, path), title: `${m.toUpperCase()} ${path}`, op });
    }
  }
  const tags: string[] = [...new Set([...(doc.tags ?? []).map((t: Json) => t.name), ...ops.map((o) => o.tag)])];
  const nav = tags
    .map((tag) => `<li><strong>${esc(tag)}</strong><ul>${ops.filter((o) => o.tag === tag).map((o) => `<li><a href="#${o.id}">${esc(o.title)}</a></li>`).join("")}</ul></li>`)
    .join("");
  const sections = tags
    .map((tag) => {
      const meaning = (doc.tags ?? []).find((t: Json) => t.name === tag)?.description;
      return `<h2>${esc(tag)}</h2>${meaning ? `<p>${prose(meaning)}</p>` : ""}${ops.filter((o) => o.tag === tag).map((o) => operation(o.id, o.title, o.op, doc)).join("")}`;
    })
    .join("");
  const webhooks = (Object.entries(doc.webhooks ?? {}) as [string, Json][])
    .map(([name, item]: [string, Json]) => operation(anchor("webhook", name), `POST → your URL: ${name}`, { ...item.post, security: [] }, doc))
    .join("");
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(([name, s]) => `<section id="${anchor("schema", name)}"><h3><code>${esc(name)}</code></h3><pre>${schemaJson(s)}</pre></section>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info?.title)} ${esc(doc.info?.version)} API reference</title><style>${STYLE}</style></head>
<body><h1>${esc(doc.info?.title)} ${esc(doc.info?.version)}</h1><p>${prose(doc.info?.description)}</p>
<p>The machine-readable document: <a href="openapi/json">/openapi/json</a> (OpenAPI ${esc(doc.openapi)}).</p>
<nav><ul>${nav}<li><a href="#webhooks"><strong>webhooks</strong></a></li><li><a href="#schemas"><strong>schemas</strong></a></li></ul></nav>
${sections}<h2 id="webhooks">Webhooks chainwatch sends</h2>${webhooks}<h2 id="schemas">Schemas</h2>${schemas}</body></html>`;
}

/** Headers of the page: nothing may load from elsewhere, and nothing runs. */
export const REFERENCE_PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};
