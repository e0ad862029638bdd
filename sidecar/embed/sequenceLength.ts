/**
 * How many word pieces of a text an embedding model reads. transformers.js truncates at the tokenizer's
 * `model_max_length` (512 for the MiniLM models), but sentence-transformers models were trained, and are
 * used by their authors, at a shorter `max_seq_length` (their `sentence_bert_config.json`): 256 for
 * all-MiniLM-L6-v2, 128 for paraphrase-multilingual-MiniLM-L12-v2. Past it a model gives no better vector,
 * and the cost of a text grows with the square of its length: a 3 KB command output took four times as
 * long at 512 pieces as at 256 (docs/benchmarks.md, "Capture backfill").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `max_seq_length` of the sentence-transformers models Mnemo names in its settings, from their
 * `sentence_bert_config.json` on the Hub (the Xenova/ conversions leave that file out).
 */
const TRAINED: Record<string, number> = {
  'all-MiniLM-L6-v2': 256,
  'all-MiniLM-L12-v2': 128,
  'paraphrase-multilingual-MiniLM-L12-v2': 128,
  'paraphrase-MiniLM-L6-v2': 128,
  'multi-qa-MiniLM-L6-cos-v1': 512,
  'all-mpnet-base-v2': 384,
};

/**
 * The longest input the model in `dir` (id `modelId`, e.g. `Xenova/all-MiniLM-L6-v2`) was trained on: its
 * `sentence_bert_config.json` when the folder has one, else the table above; undefined when neither knows
 * (the tokenizer's own limit stands).
 */
export function trainedMaxTokens(modelId: string, dir?: string): number | undefined {
  if (dir) {
    try {
      const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'sentence_bert_config.json'), 'utf8')) as {
        max_seq_length?: unknown;
      };
      const n = cfg.max_seq_length;
      if (typeof n === 'number' && Number.isInteger(n) && n > 0) return n;
    } catch {
      // no such file, or not JSON: the table decides
    }
  }
  return TRAINED[modelId.split('/').pop() ?? modelId];
}

/** Lowers a tokenizer's truncation length to what the model was trained on (never raises it). */
export function capSequenceLength(
  tokenizer: { model_max_length?: number } | undefined,
  trained: number | undefined,
): number | undefined {
  if (!tokenizer || !trained) return tokenizer?.model_max_length;
  const current = tokenizer.model_max_length;
  tokenizer.model_max_length =
    typeof current === 'number' && current > 0 ? Math.min(current, trained) : trained;
  return tokenizer.model_max_length;
}
