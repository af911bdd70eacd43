/**
 * A tiny HTML builder: `html` is a tagged template whose interpolations are escaped unless they
 * are already `Html` (built by `html` itself or marked `raw`). Arrays are joined; null, undefined
 * and false render nothing. Pages are plain functions from data to `Html`, so every value that
 * came from an account (labels, URLs, response previews) is escaped by construction.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Renderable = Html | string | number | bigint | boolean | null | undefined | Renderable[];

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for use in element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: Renderable): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** The escaping template tag. */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Marks trusted markup (constants of this module's callers) as HTML. Never pass account data. */
export function raw(markup: string): Html {
  return new Html(markup);
}
