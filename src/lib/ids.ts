/** A new opaque identifier `<prefix>_<24 lower-case hex>` (96 random bits), e.g. `aw_3f9c…`. */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}_${Buffer.from(bytes).toString("hex")}`;
}
