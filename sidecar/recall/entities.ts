/**
 * Entities for the rule channel of recall: product models (PLC-3000, S7-1200), error codes (E1023,
 * 0x80070005, ERR_SOCKET_TIMEOUT), hosts, IPs, ports, bare model numbers ("3000型号").
 */
export function extractEntities(query: string): string[] {
  const found = new Set<string>();
  const add = (s: string | undefined) => {
    const v = s?.trim();
    if (v && v.length >= 2) found.add(v.toLowerCase());
  };
  for (const m of query.matchAll(/\b[A-Za-z]{1,10}[-_]?\d{2,}[A-Za-z0-9-]*\b/g)) add(m[0]); // PLC-3000, S7-1200, E1023
  for (const m of query.matchAll(/\b0x[0-9a-fA-F]{4,}\b/g)) add(m[0]);
  for (const m of query.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) add(m[0]); // ERR_SOCKET_TIMEOUT
  for (const m of query.matchAll(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{2,5})?\b/g)) add(m[0]);
  for (const m of query.matchAll(/\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|local|lan|internal|cn|dev)\b/gi))
    add(m[0]);
  for (const m of query.matchAll(/(?:port|端口)\s*[:：]?\s*(\d{2,5})/gi)) add(m[1]);
  for (const m of query.matchAll(/(\d{3,})\s*(?:型号|系列|号机|model)/gi)) add(m[1]);
  for (const m of query.matchAll(/\b\d{3,5}\b/g)) add(m[0]);
  return [...found];
}

/** Fraction of the entities that occur in the text (0..1). */
export function entityOverlap(entities: string[], text: string): number {
  if (entities.length === 0) return 0;
  const t = text.toLowerCase();
  const hits = entities.filter((e) => t.includes(e)).length;
  return hits / entities.length;
}
