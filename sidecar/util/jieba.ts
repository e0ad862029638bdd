/**
 * The one jieba instance of a process (Chinese segmentation and POS tags), loaded on first use: its
 * dictionary costs ~200 ms and many sessions never need it. Used by the rule filter and the lexical index.
 */
import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';

const requireHere = createRequire(__filename);
let instance: Jieba | undefined;

export function jieba(): Jieba {
  if (!instance) {
    const { Jieba: JiebaClass } = requireHere('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = requireHere('@node-rs/jieba/dict') as typeof import('@node-rs/jieba/dict');
    instance = JiebaClass.withDict(dict);
  }
  return instance;
}
