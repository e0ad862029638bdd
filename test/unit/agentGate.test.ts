import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_MIN_SCORE, gateAgentCandidates } from '../../sidecar/pipeline/agentGate';
import { analyzeSession } from '../../sidecar/pipeline';
import type { Candidate, SessionInput } from '../../sidecar/pipeline/types';
import { buildSessions } from '../../sidecar/capture/session';
import type { CapturedMessage } from '../../sidecar/capture/types';

const agentSession = (messages: SessionInput['messages']): SessionInput => ({
  project_id: 'shop',
  source_type: 'chat',
  messages,
  source_ref: ['agent:claude-code', 'session:claude-code:s1'],
});

test('in an agent session a request for one change is no memory; the same words elsewhere still are', async () => {
  const messages = [
    { id: 'u1', role: 'user', content: 'Add a --dry-run flag to the deploy script and document it.' },
    {
      id: 'a1',
      role: 'assistant',
      name: 'Claude Code',
      content: 'Done, the flag is documented in README.md.',
    },
    {
      id: 'u2',
      role: 'user',
      content: 'Set the retry limit of the billing worker to 5, because the vendor throttles us.',
    },
    { id: 'u3', role: 'user', content: '以后这个仓库统一用 pnpm，不要再用 npm。' },
  ];
  const captured = await analyzeSession(agentSession(messages));
  const texts = captured.candidates.map((c) => c.text);
  assert.ok(!texts.some((t) => t.includes('--dry-run')), texts.join('\n'));
  assert.ok(
    texts.some((t) => t.includes('retry limit')),
    'a value and a reason make it a fact',
  );
  assert.ok(
    texts.some((t) => t.includes('pnpm')),
    'a rule for every time',
  );
  assert.ok(captured.dropped.some((d) => d.reason.startsWith('drop:agent-task')));
  const plain = await analyzeSession({ ...agentSession(messages), source_ref: [] });
  assert.ok(
    plain.candidates.some((c) => c.text.includes('--dry-run')),
    'without an agent the rules keep it as before',
  );
});

const cand = (over: Partial<Candidate>): Candidate => ({
  text: 'x',
  category: 'instruction',
  source_type: 'chat',
  is_actionable: false,
  source_ref: [],
  message_ids: ['m'],
  reason: 'rule:cognitive-verb(confirmed)',
  score: 8,
  confidence: 0.9,
  pending: false,
  features: {
    role: 'assistant',
    rule: 'cognitive-verb',
    explicit_request: false,
    has_number: false,
    tech_terms: 1,
    vent: false,
    unverified_claim: false,
    length: 40,
  },
  ...over,
});

test("from an agent's shell, a failure is kept with the changed command that fixed it, not its reruns", () => {
  const fix = (text: string, kind: 'changed' | 'retry' | 'steps') =>
    cand({
      text,
      reason: 'rule:terminal-fix(pnpm exit 1 -> exit 0)',
      features: undefined,
      score: 3,
      fix: kind,
    });
  const all = [
    fix('`pnpm test` failed; `pnpm test -- --runInBand` fixed it.', 'changed'),
    fix('`npm run lint` failed; `npm run lint` passed on a later retry.', 'retry'),
    fix('`pnpm build` failed; fixed by `pnpm test`, then `pnpm build` passed.', 'steps'),
  ];
  const agent = gateAgentCandidates(all, { source_ref: ['agent:claude-code'] });
  assert.deepEqual(
    agent.candidates.map((c) => c.fix),
    ['changed'],
  );
  assert.deepEqual(
    agent.dropped.map((d) => d.reason.split('(')[0]),
    ['drop:agent-rerun', 'drop:agent-rerun'],
  );
  assert.match(agent.dropped[0]!.reason, /the same command passed again/);
  // The person's own terminal keeps all three: they know what they did in between.
  assert.equal(gateAgentCandidates(all, { source_ref: [] }).candidates.length, 3);
});

test("the agent's own claims need a higher score and never wait in the person's review queue", () => {
  const refs = { source_ref: ['agent:codex'] };
  const { candidates, dropped } = gateAgentCandidates(
    [
      cand({ text: 'strong', score: AGENT_MIN_SCORE + 1 }),
      cand({ text: 'weak', score: AGENT_MIN_SCORE - 1 }),
      cand({ text: 'unsure', score: 9, pending: true, pending_reason: 'unverified hard claim' }),
      cand({
        text: 'a fix',
        reason: 'rule:terminal-fix(npm exit 1 -> exit 0)',
        features: undefined,
        score: 3,
      }),
    ],
    refs,
  );
  assert.deepEqual(
    candidates.map((c) => c.text),
    ['strong', 'a fix'],
  );
  assert.deepEqual(
    dropped.map((d) => d.reason.split('(')[0]),
    ['drop:agent-claim', 'drop:agent-unreviewed'],
  );
  assert.equal(
    gateAgentCandidates([cand({ score: 1 })], { source_ref: [] }).candidates.length,
    1,
    'not an agent session',
  );
});

test("a captured session's turns get their tiers: the person's own turn, the agent's words, outside content; the agent's shell commands are the agent's", async () => {
  const messages: CapturedMessage[] = [
    { id: 'u1', role: 'user', text: 'We deploy the billing service with blue-green releases, always.' },
    {
      id: 'a1',
      role: 'assistant',
      speaker: 'Claude Code',
      text: 'The staging database is PostgreSQL 16 on port 5433, so the tests use that port.',
    },
    { id: 't1', role: 'tool', text: '', tool: { name: 'Read', target: 'docs/deploy.md' } },
    {
      id: 't2',
      role: 'tool',
      text: '',
      tool: {
        name: 'Bash',
        command: 'npm test',
        exitCode: 1,
        output: 'Error: connect ECONNREFUSED 127.0.0.1:5432',
      },
    },
    { id: 'a2', role: 'assistant', speaker: 'Claude Code', text: 'I will point the tests at port 5433.' },
  ];
  const { sessions } = buildSessions(messages, { source: 'claude-code', sessionId: 's1', projectId: 'shop' });
  const [chat, shell] = await Promise.all(sessions.map((s) => analyzeSession(s)));
  assert.deepEqual(Object.fromEntries(chat!.guard.tiers), {
    u1: 'own-turn',
    a1: 'agent',
    t1: 'outside',
    a2: 'agent',
  });
  assert.deepEqual(Object.fromEntries(shell!.guard.tiers), { 't2:cmd': 'agent', 't2:out': 'outside' });
  const tierOfText = (part: string) => chat!.candidates.find((c) => c.text.includes(part))?.tier;
  assert.equal(tierOfText('blue-green'), 'own-turn');
  for (const c of [...chat!.candidates, ...shell!.candidates])
    if (!c.message_ids.some((id) => id.startsWith('u'))) assert.notEqual(c.tier, 'own-turn', c.text);
  // The same command typed by the person in their own terminal is their own turn.
  const own = await analyzeSession({ ...sessions[1]!, source_ref: [] });
  assert.equal(own.guard.tiers.get('t2:cmd'), 'own-turn');
});
