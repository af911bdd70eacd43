import pkg from "../package.json" with { type: "json" };

/** chainwatch's version: package.json is its one source (CLI, OpenAPI info, webhook User-Agent, database stamp). */
export const VERSION: string = pkg.version;

/**
 * Orders two `MAJOR.MINOR.PATCH[-pre]` versions: negative when `a` is older, 0 when equal. A
 * pre-release sorts before its release (`1.0.0-rc.1` < `1.0.0`), pre-release tags compare as text.
 */
export function compareVersions(a: string, b: string): number {
  const [coreA, preA] = splitVersion(a);
  const [coreB, preB] = splitVersion(b);
  for (let i = 0; i < 3; i++) if (coreA[i] !== coreB[i]) return coreA[i] - coreB[i];
  if (preA === preB) return 0;
  if (preA === "") return 1;
  if (preB === "") return -1;
  return preA < preB ? -1 : 1;
}

function splitVersion(v: string): [number[], string] {
  const dash = v.indexOf("-");
  const core = (dash < 0 ? v : v.slice(0, dash)).split(".").map((n) => Number.parseInt(n, 10) || 0);
  while (core.length < 3) core.push(0);
  return [core, dash < 0 ? "" : v.slice(dash + 1)];
}
