/** How the lexicon tables become regular expressions: one alternative per table row. */

/** A regex that matches any of `parts` (each part is regex source). */
export const alt = (parts: readonly string[], flags = ''): RegExp => new RegExp(parts.join('|'), flags);

/** Regex source matching any of these words or phrases as whole words. */
export const words = (list: readonly string[]): string => `\\b(?:${list.join('|')})\\b`;

/** Regex source of a non-capturing group of these alternatives. */
export const group = (list: readonly string[]): string => `(?:${list.join('|')})`;
