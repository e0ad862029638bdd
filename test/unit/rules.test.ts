import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyRules,
  extractSourceRefs,
  splitSentences,
  stripExplicitRequest,
} from '../../sidecar/pipeline/rules';
import type { Candidate, NormalizedMessage, Role } from '../../sidecar/pipeline/types';

let n = 0;
const msg = (content: string, role: Role = 'user'): NormalizedMessage => ({
  id: `t${n++}`,
  role,
  content,
  timestamp: '2026-05-15T12:00:00.000Z',
});

/** Run one sentence through the rules as a user (or other role) message. */
function judge(text: string, role: Role = 'user'): { kept?: Candidate; reason: string } {
  const r = applyRules([msg(text, role)], 'chat');
  if (r.candidates.length) return { kept: r.candidates[0]!, reason: r.candidates[0]!.reason };
  return { reason: r.dropped.map((d) => d.reason).join(' | ') };
}

describe('rules: sentence segmentation', () => {
  it('splits Chinese and English sentences where Intl.Segmenter should', () => {
    assert.deepEqual(splitSentences('超时阈值设为 1500ms。请重启'), ['超时阈值设为 1500ms。', '请重启']);
    assert.deepEqual(splitSentences("timeout is 1500ms. Maybe it's the network"), [
      'timeout is 1500ms.',
      "Maybe it's the network",
    ]);
  });

  it('does not split inside numbers, versions, abbreviations or URLs; splits an ASCII stop glued to Chinese', () => {
    assert.deepEqual(splitSentences('Upgrade to v1.2.3 e.g. the LTS build. Then restart'), [
      'Upgrade to v1.2.3 e.g. the LTS build.',
      'Then restart',
    ]);
    assert.deepEqual(splitSentences('Ask Dr. Wang about PLC-3000.'), ['Ask Dr. Wang about PLC-3000.']);
    assert.deepEqual(splitSentences('see https://example.com/a.b.html for details'), [
      'see https://example.com/a.b.html for details',
    ]);
    assert.deepEqual(splitSentences('阈值设为1500ms.请重启网关'), ['阈值设为1500ms.', '请重启网关']);
    assert.deepEqual(splitSentences('- 第一条\n2. 第二条！第三条'), ['第一条', '第二条！', '第三条']);
  });
});

describe('rules: what is kept (seed examples)', () => {
  const cases: Array<[string, Candidate['category'], boolean, RegExp]> = [
    ['我习惯用vim，不要用nano', 'persona', false, /^rule:preference\(我习惯\)/],
    ['I always use vim, never suggest nano', 'persona', false, /^rule:preference/],
    ['我是后端工程师', 'persona', false, /^rule:identity/],
    ["I'm a backend engineer on the SCADA team", 'persona', false, /^rule:identity/],
    ['我在做 Java 后端的性能优化，重点关注 JVM 调优', 'persona', false, /^rule:identity\(我在做\)/],
    ['我喜欢简洁的回答，用列表形式输出。', 'persona', false, /^rule:style/],
    ['喜欢暗色模式', 'persona', false, /^rule:preference/],
    ['昨天把服务迁移到了k8s', 'episodic', false, /operational-verb\(迁移\)/],
    ['完成博客主题迁移', 'episodic', false, /^rule:event\(完成\)/],
    [
      'I restarted the gateway after changing the config.',
      'episodic',
      false,
      /operational-verb\(restarted\)/,
    ],
    ['PLC-3000 通讯超时阈值设为 1500ms', 'instruction', true, /^rule:operational-verb\(设为\) \+tech-number/],
    ['我的项目统一用Python 3.11', 'instruction', true, /^rule:decision/],
    ['代码风格遵循PEP8，docstring用Google风格', 'instruction', false, /^rule:rule\(遵循\)/],
    ['部署前先hugo --minify测试', 'instruction', false, /^rule:workflow/],
    ['We decided to use Redis for caching.', 'instruction', false, /^rule:decision/],
    ['其实是 Modbus 站号配错了，不是网络问题', 'instruction', false, /^rule:correction\(其实是\)/],
    [
      'PLC-3000 通讯中断时，Wireshark 显示 TCP RST 包集中出现在端口 502，确认为 Modbus-TCP 协议栈异常，非网络层问题。',
      'instruction',
      true,
      /^rule:cognitive-verb\(确认\)/,
    ],
    [
      'We verified that the retry limit of 3 fixes the flapping.',
      'instruction',
      true,
      /cognitive-verb\(verified\)/,
    ],
    ['port 502', 'instruction', true, /^rule:tech-number\(port 502\)/],
    ['timeout 1500 ms', 'instruction', true, /^rule:tech-number\(timeout 1500 ms\)/],
  ];
  for (const [text, category, actionable, reason] of cases) {
    it(`keeps "${text}" as ${category}${actionable ? ', actionable' : ''}`, () => {
      const r = judge(text);
      assert.ok(r.kept, `dropped: ${r.reason}`);
      assert.equal(r.kept.category, category);
      assert.equal(r.kept.is_actionable, actionable);
      assert.match(r.kept.reason, reason);
      assert.equal(r.kept.source_type, 'chat');
      assert.ok(r.kept.source_ref[0]!.startsWith('msg:'));
    });
  }
});

describe('rules: what is dropped, and why', () => {
  const cases: Array<[string, RegExp, Role?]> = [
    ['你好', /^drop:small-talk\(你好\)$/],
    ['在吗', /^drop:small-talk/],
    ['谢谢！', /^drop:small-talk/],
    ['好的', /^drop:small-talk/],
    ['Thanks!', /^drop:small-talk/],
    ['ok', /^drop:small-talk/],
    ['可能是网络问题', /^drop:hedge\(可能\)$/],
    ['大概要重启 3 次才行', /^drop:hedge\(大概\)$/],
    ['好像是驱动的问题', /^drop:hedge\(好像\)/],
    ['也许该升级固件', /^drop:hedge\(也许\)/],
    ["Maybe it's the network", /^drop:hedge\(Maybe\)$/],
    ['It might be the firewall on port 502', /^drop:hedge\(might\)$/],
    ['I guess the driver is broken', /^drop:hedge/],
    ['这破驱动又崩了', /^drop:venting/],
    ['ugh this stupid driver crashed again', /^drop:venting/],
    ['帮我查一下天气', /^drop:one-off-request/],
    ['Can you check the logs for me', /^drop:one-off-request/],
    ['你知道我用什么编辑器吗？', /^drop:question/],
    ['请重启', /^drop:(?:too-short|one-off-request)/],
    ['今天天气不错', /^drop:no-signal$/],
    ['PLC-3000 的默认端口是 502，已确认', /^drop:system-message$/, 'system'],
    ['你可以试试把超时调大一点', /^drop:assistant-unconfirmed$/, 'assistant'],
    ['建议把超时设为 3000ms', /^drop:assistant-unconfirmed$/, 'assistant'],
  ];
  for (const [text, reason, role] of cases) {
    it(`drops "${text}"${role ? ` (${role})` : ''}`, () => {
      const r = judge(text, role);
      assert.equal(r.kept, undefined, `kept: ${r.kept?.reason}`);
      assert.match(r.reason, reason);
    });
  }

  it('不可能 is certainty, not a hedge', () => {
    const r = judge('不可能是网络问题，确认是站号配错了');
    assert.ok(r.kept, r.reason);
  });
});

describe('rules: explicit requests go to the review queue', () => {
  it('strips the request phrase and marks the candidate pending', () => {
    for (const [text, stored] of [
      ['请记录：部署前先跑 hugo --minify 测试', '部署前先跑 hugo --minify 测试'],
      ['记一下，PLC-3000 的站号是 3', 'PLC-3000 的站号是 3'],
      ['Remember that the staging DB is read-only on Fridays.', 'the staging DB is read-only on Fridays.'],
      ['note this: we rotate the TLS certs every 90 days', 'we rotate the TLS certs every 90 days'],
      ['PLC-3000 的站号是 3，记一下', 'PLC-3000 的站号是 3'],
    ] as const) {
      const r = judge(text);
      assert.ok(r.kept, `dropped: ${r.reason}`);
      assert.equal(r.kept.text, stored);
      assert.equal(r.kept.pending, true);
      assert.match(r.kept.reason, /^rule:explicit-request\(/);
      assert.match(r.kept.pending_reason ?? '', /explicit request/);
    }
  });

  it('"下次提醒我" makes a pending, actionable reminder', () => {
    const r = judge('下次提醒我更新网关证书');
    assert.equal(r.kept?.text, '更新网关证书');
    assert.equal(r.kept?.is_actionable, true);
    assert.equal(r.kept?.pending, true);
  });

  it('a bare "把这个加到知识库" applies to the sentence before it, even one the rules had dropped', () => {
    const a = applyRules([msg('日期必须是 RFC3339 格式'), msg('把这个加到知识库')], 'chat');
    assert.equal(a.candidates.length, 1);
    assert.equal(a.candidates[0]!.text, '日期必须是 RFC3339 格式');
    assert.equal(a.candidates[0]!.pending, true);
    assert.equal(a.candidates[0]!.message_ids.length, 2);
    const b = applyRules([msg('今天机房温度偏高'), msg('记一下')], 'chat');
    assert.equal(b.candidates[0]?.text, '今天机房温度偏高');
    assert.match(b.candidates[0]!.reason, /^rule:explicit-request\(记一下\)/);
    assert.equal(b.dropped.length, 0);
  });

  it('stripExplicitRequest leaves ordinary sentences alone', () => {
    assert.deepEqual(stripExplicitRequest('记录显示端口 502 被占用'), { rest: '记录显示端口 502 被占用' });
  });
});

describe('rules: source references', () => {
  it('puts the referenced document, page or link into source_ref', () => {
    const a = judge('参考《PLC-3000 用户手册》第12页，把站号设为 3');
    assert.ok(a.kept);
    assert.ok(a.kept.source_ref.includes('doc:《PLC-3000 用户手册》第12页'), a.kept.source_ref.join(' '));
    const b = judge('According to https://example.com/docs/modbus, the default port is 502.');
    assert.ok(b.kept?.source_ref.includes('url:https://example.com/docs/modbus'));
    assert.deepEqual(extractSourceRefs('依据厂家手册第12页修改波特率为 9600').refs, ['doc:厂家手册第12页']);
    assert.deepEqual(extractSourceRefs('来自 docs/runbook.md 的步骤').refs, ['file:docs/runbook.md']);
    assert.deepEqual(extractSourceRefs('Timestamps follow RFC 3339 per RFC 3339 section 5.6').refs, [
      'doc:RFC 3339 §5.6',
    ]);
    assert.deepEqual(extractSourceRefs('I see the point'), { refs: [] });
  });

  it('a sentence whose only signal is a reference is kept for it', () => {
    const r = judge('详见《网关运维规范》第3章');
    assert.match(r.kept?.reason ?? r.reason, /^rule:source-ref\(详见\)/);
  });
});

describe('rules: roles and sessions', () => {
  it('keeps confirmed facts and decisions from the assistant, nothing else', () => {
    const r = applyRules(
      [
        msg('好的，我来看看日志。', 'assistant'),
        msg('排查后确认根因是站号配置错误，改为 3 后通讯恢复。', 'assistant'),
        msg('你也可以考虑升级固件。', 'assistant'),
      ],
      'troubleshooting_log',
    );
    assert.deepEqual(
      r.candidates.map((c) => c.text),
      ['排查后确认根因是站号配置错误，改为 3 后通讯恢复。'],
    );
    assert.equal(r.candidates[0]!.source_type, 'troubleshooting_log');
    assert.ok(r.dropped.every((d) => /^drop:/.test(d.reason)));
  });

  it('every sentence is accounted for: kept with a rule:… reason or dropped with a drop:… reason', () => {
    const content = '你好！我习惯用vim，不要用nano。可能是网络问题。PLC-3000 通讯超时阈值设为 1500ms。谢谢';
    const r = applyRules([msg(content)], 'chat');
    assert.equal(r.candidates.length + r.dropped.length, splitSentences(content).length);
    assert.ok(r.candidates.every((c) => /^rule:[\w-]+\(/.test(c.reason)));
    assert.ok(r.dropped.every((d) => /^drop:[\w-]+/.test(d.reason)));
  });

  it('the same fact said twice in a session becomes one candidate with both message ids', () => {
    const a = msg('部署前先跑 hugo --minify 测试');
    const b = msg('部署前先跑 hugo --minify 测试。');
    const r = applyRules([a, b], 'chat');
    assert.equal(r.candidates.length, 1);
    assert.deepEqual(r.candidates[0]!.message_ids, [a.id, b.id]);
    assert.equal(r.dropped[0]!.reason, 'drop:duplicate-in-session');
  });

  it('ignores fenced code blocks', () => {
    const r = applyRules(
      [msg('我们决定用 Redis 做缓存\n```\nexport FOO=1\nrestart the server now\n```')],
      'chat',
    );
    assert.deepEqual(
      r.candidates.map((c) => c.text),
      ['我们决定用 Redis 做缓存'],
    );
  });
});

describe('rules: plans', () => {
  it('keeps a plan that says what, drops a promise about a bare pronoun', () => {
    assert.match(judge("I'll drive Mia to her piano lesson on Saturday").reason, /^rule:plan\(/);
    assert.match(judge("we'll repaint the kitchen in May").reason, /^rule:plan\(/);
    assert.match(judge("I'll ask them about the budget on Friday").reason, /^rule:plan\(/);
    assert.match(judge("the auth service is Mateo's, I'll loop him in").reason, /^rule:plan\(/);
    for (const t of [
      "I'll draft it",
      "Okay, I'll keep that in mind.",
      "just a corner, I'll live with it",
      "I'll send a photo later",
      "ok, I'll make a ticket",
      'is anyone actually on call for the ledger this week or is it just vibes',
      'not sure I agree but fine',
      '我先下了，拜拜',
    ])
      assert.equal(judge(t).kept, undefined, `${t}: ${judge(t).reason}`);
  });
});

describe('rules: small talk that looks like an event, a rule or a possession', () => {
  it('keeps a change said with a bare 了, drops a passing state said the same way', () => {
    for (const t of [
      '同事老周改喝绿茶了',
      '你室友收拾收拾去成都了',
      '我的同事小何吃腻过桥米线了，现在只吃煲仔饭',
    ])
      assert.ok(judge(t).kept, `${t}: ${judge(t).reason}`);
    for (const t of ['好点了，谢谢关心', '我去忙了', '懂了懂了', '我又被雨淋了'])
      assert.equal(judge(t).kept, undefined, `${t}: ${judge(t).reason}`);
  });

  it('drops a count without its noun, a story, a closing "always" and a question after "remind me"', () => {
    for (const t of [
      'I own four, they are all at home',
      'I have a funny story about the Lisbon trip, remind me later',
      '我有四把，全在家里',
      'behind the VPN, always',
      'the staging discussion should have been its own meeting',
      "honestly I don't remember",
      '同事老周喝东西特别挑',
      'remind me, how long before the notifications service times out?',
      'I was telling my mom about the new car',
      "I'll put a date on it",
    ])
      assert.equal(judge(t).kept, undefined, `${t}: ${judge(t).reason}`);
    for (const t of [
      'I own four bikes',
      'always run the linter before a push',
      'my sister Jenna lives in Denver',
    ])
      assert.ok(judge(t).kept, `${t}: ${judge(t).reason}`);
  });
});

describe('rules: chatter stays out of the memories, facts said the same way stay in', () => {
  const dropped = (t: string, reason: RegExp): void => {
    const j = judge(t);
    assert.equal(j.kept, undefined, `${t}: kept by ${j.reason}`);
    assert.match(j.reason, reason, t);
  };
  const kept = (t: string, rule?: string): void => {
    const j = judge(t);
    assert.ok(j.kept, `${t}: ${j.reason}`);
    if (rule) assert.equal(j.kept.features?.rule, rule, `${t}: ${j.reason}`);
  };

  it('how work is going, without a value, is no memory; a config change with its value is', () => {
    dropped('standup ran long again', /status-chatter/);
    dropped('the payments gateway scaling is still being debated', /status-chatter/);
    dropped('sigh, the checkout build broke again', /status-chatter/);
    dropped('the billing handover doc is out of date', /status-chatter/);
    dropped('站会又开超时了', /status-chatter/);
    dropped('订单服务扩缩容还在讨论', /status-chatter/);
    dropped('支付回调的告警最近太吵了', /status-chatter/);
    dropped('我翻了好久库存服务的日志，白看了', /status-chatter/);
    kept('we bumped the payments gateway timeout to 45 seconds, it was flaky again');
    kept('We pinned the payments gateway to 8.8.11');
    kept('支付回调的超时我调成 8 秒了，之前 3 秒老是误判失败');
  });

  it('a verb inside a system name is no operational verb', () => {
    dropped('the React Native upgrade tests take forever now', /status-chatter|no-signal/);
    dropped('Redis 集群升级依赖的合并请求太大了', /status-chatter|no-signal/);
    kept('the reports job runs at 01:00 UTC every night');
    kept("I'll update the runbook before my shift ends");
  });

  it('moods, jokes and remarks about the moment are dropped, in English and Chinese', () => {
    dropped('I slept like four hours, be gentle', /passing/);
    dropped('ok I have like ten minutes', /passing/);
    dropped('I had a whole plan for today and then reality happened', /passing/);
    dropped('my inbox is a crime scene', /passing/);
    dropped('I told you already!', /passing/);
    dropped('classic. I hate that job so much', /passing/);
    kept('I hate cilantro, it tastes like soap', 'preference');
    dropped('我只有十分钟', /passing/);
    dropped('今天状态不太好，凑合着干吧', /passing/);
    dropped('我今天已经喝了三杯咖啡了', /passing/);
    dropped('别问我，问当时在场的人', /passing/);
    dropped('那就这么定了', /passing/);
  });

  it('a vague proposal is neither a rule nor a plan; a rule and a dated plan still are', () => {
    dropped('we should grab lunch sometime', /suggestion/);
    dropped('we should write down why the refunds API timeout is what it is', /suggestion/);
    dropped('订单服务那个讨论应该单独开个会', /suggestion/);
    dropped('搜索服务要是能自动扩缩容就好了', /suggestion/);
    kept('never push to main without a green build', 'rule');
    kept('TLS 1.0 must be off on every load balancer by the end of the quarter', 'rule');
    kept("I'm going to Lisbon with my brother in April");
    kept('下个月我要去成都出差');
  });

  it('a request to whoever listens and a question without its mark are no facts', () => {
    dropped('whoever moves the staging backend port next time, please announce it', /one-off-request/);
    dropped('add it to the retro list', /one-off-request/);
    dropped('有空帮我看下订单服务的合并请求吗，改动很小', /one-off-request|question/);
    dropped('新链路跑通了，旧的定时任务是不是可以下掉了', /question/);
    dropped('这周到底有没有人值班', /question/);
    kept('十月我想去日本京都看红叶，你要不要一起');
  });

  it('a relative in a story that names nothing is no family fact; a relative with a fact is', () => {
    dropped('my brother Carl bought way too much gear for the new hobby', /no-signal|passing/);
    dropped('my partner Ana is still unpacking boxes after the move', /no-signal|passing/);
    dropped('我的老公为了新爱好买了一堆装备', /no-signal|passing/);
    dropped('我的妹妹搬完家箱子还没拆完', /no-signal|passing/);
    kept('my sister Chiara always orders bibimbap');
    kept('my neighbor Walt finally got a parrot, Waffles, tiny', 'family');
    kept('我的同事小何已经后悔买一台投影仪了', 'possession');
    kept('老孙喜欢喝浓茶，找他之前带点茶叶', 'preference');
  });

  it('"already" and "finally" date nothing; a real time cue or a value still keeps the event', () => {
    dropped('I finally cleaned out the fridge', /passing|no-signal/);
    dropped('我之前说过啦！', /passing|no-signal/);
    kept('I ran my first half marathon last Sunday, 2 hours 4 minutes');
    kept('冷却塔控制柜现在是 8.7.6，终于不用 9.11.4 了');
    kept('the cert-manager is on 4.1.5 now, we finally left 7.0.0');
  });
});

describe('rules: English words that are names of built-in object properties', () => {
  it('a message about a constructor or toString is judged, not a crash of the whole session', () => {
    const r = applyRules(
      [
        msg('I moved the constructor of the retry client into the factory yesterday'),
        msg('we fixed toString on the money type last week, it printed cents'),
        msg('the valueOf override is gone, never add it back'),
      ],
      'chat',
    );
    assert.equal(r.candidates.length, 3, r.dropped.map((d) => d.reason).join(' | '));
  });
});
