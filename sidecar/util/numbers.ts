/** Small numeric helpers shared by the rooms of the service. */

/** Rounds to three decimals (scores and confidences on the wire). */
export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** An integer within [lo, hi]; anything that is not a finite number becomes lo. */
export function clampInt(n: number, lo: number, hi: number): number {
  const v = Math.floor(Number(n));
  if (!Number.isFinite(v)) return lo;
  return Math.min(hi, Math.max(lo, v));
}
