/**
 * Which turns carry a question's answer. A key token matches as a whole word when it is Latin or a number
 * (so "40" does not match "1400"), as a substring when it holds Chinese. A turn carries the answer when it
 * holds every key token that one of the evidence turns holds: for a one-turn answer, all the keys; for a
 * multi-hop answer, the part of it one evidence turn gives.
 */
const cache = new Map<string, RegExp>();

function pattern(key: string): RegExp {
  let re = cache.get(key);
  if (!re) {
    const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    re = /[\u3400-\u9fff]/.test(key)
      ? new RegExp(esc, 'iu')
      : new RegExp(`(?<![\\p{L}\\p{N}])${esc}(?![\\p{L}\\p{N}])`, 'iu');
    cache.set(key, re);
  }
  return re;
}

export function holds(text: string, key: string): boolean {
  return pattern(key).test(text);
}

/** The key sets a carrier must hold: for each evidence text, the keys it holds (empty sets dropped). */
export function answerParts(evidenceTexts: string[], keys: string[]): string[][] {
  const parts = evidenceTexts.map((t) => keys.filter((k) => holds(t, k))).filter((p) => p.length);
  return parts.length ? parts : [keys];
}

export function carries(text: string, parts: string[][]): boolean {
  return parts.some((p) => p.every((k) => holds(text, k)));
}
