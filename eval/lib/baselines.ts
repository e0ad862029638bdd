/**
 * The raw-turn baselines the product is measured against, over the same turns of the same project:
 * BM25 (MiniSearch's BM25+, jieba tokens for Chinese), dense (all-MiniLM-L6-v2 over "speaker: text", via the
 * sidecar's own local embedding provider) and their reciprocal rank fusion.
 */
import { createRequire } from 'node:module';
import MiniSearch from 'minisearch';
import type { EmbeddingProvider } from '../../sidecar/embed/index';

export interface Turn {
  id: string;
  /** "speaker: text", what both baselines index. */
  text: string;
}

/** A ranked list of turn ids, best first. */
export type Ranking = string[];

const requireHere = createRequire(__filename);
let jieba: { cut(s: string, hmm?: boolean): string[] } | undefined;

/** Words of a text: jieba's segmentation (it keeps Latin words and numbers whole), lowercased, without punctuation or spaces. */
export function tokenize(text: string): string[] {
  if (!jieba) {
    const { Jieba } = requireHere('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = requireHere('@node-rs/jieba/dict') as typeof import('@node-rs/jieba/dict');
    jieba = Jieba.withDict(dict);
  }
  return jieba
    .cut(text, true)
    .map((t) => t.trim().toLowerCase())
    .filter((t) => /[\p{L}\p{N}]/u.test(t));
}

/** BM25 over one project's turns. */
export class Bm25Index {
  private readonly ms = new MiniSearch<Turn>({
    fields: ['text'],
    idField: 'id',
    tokenize,
    processTerm: (t) => t,
  });
  constructor(turns: Turn[]) {
    this.ms.addAll(turns);
  }
  search(query: string, limit: number): Ranking {
    return this.ms
      .search(query, { combineWith: 'OR' })
      .slice(0, limit)
      .map((r) => String(r.id));
  }
}

/** Dense retrieval over one project's turns with the product's embedding model. */
export class DenseIndex {
  private constructor(
    private readonly ids: string[],
    private readonly vectors: number[][],
    private readonly embedder: EmbeddingProvider,
  ) {}

  /**
   * Embeds every turn. Turns go in batches of similar length (sorted by length), so a batch pads little:
   * on long conversations that is most of the cost of this baseline.
   */
  static async build(turns: Turn[], embedder: EmbeddingProvider, batch = 64): Promise<DenseIndex> {
    const order = turns.map((_, i) => i).sort((a, b) => turns[a]!.text.length - turns[b]!.text.length);
    const vectors: number[][] = new Array<number[]>(turns.length);
    for (let i = 0; i < order.length; i += batch) {
      const idx = order.slice(i, i + batch);
      const out = await embedder.embed(idx.map((j) => turns[j]!.text));
      idx.forEach((j, k) => (vectors[j] = out[k]!));
    }
    return new DenseIndex(
      turns.map((t) => t.id),
      vectors,
      embedder,
    );
  }

  /** Rankings for many queries at once (vectors are L2-normalized: the dot product is the cosine). */
  async searchMany(queries: string[], limit: number): Promise<Ranking[]> {
    const qv = await this.embedder.embed(queries);
    return qv.map((q) =>
      this.vectors
        .map((v, i) => ({ i, s: v.reduce((acc, x, j) => acc + x * q[j]!, 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, limit)
        .map((x) => this.ids[x.i]!),
    );
  }
}

/** Reciprocal rank fusion (Cormack et al. 2009): score = sum over lists of 1 / (k + rank), k = 60. */
export function reciprocalRankFusion(lists: Ranking[], limit: number, k = 60): Ranking {
  const score = new Map<string, number>();
  for (const list of lists) list.forEach((id, r) => score.set(id, (score.get(id) ?? 0) + 1 / (k + r + 1)));
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([id]) => id);
}
