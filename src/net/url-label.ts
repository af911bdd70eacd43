/**
 * A URL as logs and status output may show it: scheme, host and port only. Webhook and node URLs
 * often carry a secret in the path (`/v3/<key>`, `/services/<team>/<token>`), the query or the
 * credentials, so none of those is ever printed.
 */
export function urlLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(invalid url)";
  }
}
