import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanText } from '../../sidecar/pipeline/normalize';
import { cutText, wellFormed } from '../../sidecar/shared/text';

test('a lone surrogate becomes U+FFFD; emoji and CJK stay as they are', () => {
  assert.equal(wellFormed('port 5432 \uD83D here'), 'port 5432 \uFFFD here');
  assert.equal(wellFormed('tail \uDE00'), 'tail \uFFFD');
  assert.equal(wellFormed('ok 😀 端口'), 'ok 😀 端口');
  assert.equal(cleanText('timeout 1500 ms \uD83D'), 'timeout 1500 ms \uFFFD');
});

test('a cut never ends inside an emoji', () => {
  const text = 'a'.repeat(1999) + '😀' + 'tail';
  const cut = cutText(text, 2000);
  assert.equal(cut, 'a'.repeat(1999));
  assert.equal(wellFormed(cut), cut);
  assert.equal(cutText('short', 2000), 'short');
  assert.equal(cutText('ab😀', 4), 'ab😀');
});
