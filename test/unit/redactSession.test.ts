import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactSession, redactText } from '../../sidecar/pipeline/redact';

test('every free-text field of a session is redacted: content, message id, speaker, source_ref, added_by, session_id', async () => {
  const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const r = await redactSession({
    project_id: 'p',
    source_type: 'chat',
    session_id: `s-${token}`,
    added_by: 'wang.li@example.com',
    source_ref: ['url:redis://:Sup3rSecret!@cache.internal:6379/0', 'file:/repo/README.md'],
    messages: [
      {
        id: token,
        name: 'sk_live_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
        role: 'user',
        content: `curl -u deploy:Dp9#vw4Tes https://nexus.example.com`,
      },
    ],
  });
  const json = JSON.stringify(r.session);
  for (const secret of [
    token,
    'Sup3rSecret!',
    'wang.li@example.com',
    'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
    'Dp9#vw4Tes',
  ])
    assert.ok(!json.includes(secret), `${secret} survived`);
  assert.equal(r.session.source_ref![0], 'url:redis://:[REDACTED:url-password]@cache.internal:6379/0');
  assert.equal(r.session.source_ref![1], 'file:/repo/README.md', 'a plain ref is kept as it is');
  assert.equal(r.session.project_id, 'p');
  assert.equal(r.redactions, 6);
});

test('the nine kinds the audit found surviving are redacted, and the prose around them is kept', async () => {
  const cases: Array<[string, string]> = [
    ['redis://:pw4Cache!@cache.local:6379', 'redis://:[REDACTED:url-password]@cache.local:6379'],
    ['工行卡号 9558801234567890123 转账', '工行卡号 [REDACTED:bank-card] 转账'],
    ['key sk_live_51HqLyjWDarjtT1zdp7dc in prod', 'key [REDACTED:stripe-key] in prod'],
    ['use hf_AbCdEfGhIjKlMnOpQrStUvWxYz12345678 here', 'use [REDACTED:huggingface-token] here'],
    [
      'AccountName=x;AccountKey=c2VjcmV0a2V5c2VjcmV0a2V5c2VjcmV0a2V5==;EndpointSuffix=core.windows.net',
      'AccountName=x;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net',
    ],
    ['mysql -uroot -pS3cretPw mes', 'mysql -uroot -p[REDACTED:password] mes'],
    ['curl -u admin:hunter22 https://x.example', 'curl -u admin:[REDACTED:password] https://x.example'],
    ['Authorization: Basic ZGVwbG95OnMzY3JldA==', 'Authorization: Basic [REDACTED:basic-auth]'],
    ['passphrase: correct horse battery staple', 'passphrase: [REDACTED:password]'],
    ['the wifi password is marshmallow today', 'the wifi password is [REDACTED:password] today'],
  ];
  for (const [input, expected] of cases) assert.equal((await redactText(input)).text, expected, input);
});

test('prose about passwords and flags without a value stay as they are', async () => {
  for (const text of [
    'The password is required for sudo.',
    'mysql -h db -P 3306 -p',
    'Basic auth is disabled.',
    'the passphrase is incorrect, try again',
  ]) {
    assert.equal((await redactText(text)).text, text);
  }
});
