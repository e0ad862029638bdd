/**
 * Verbs of knowing and doing: a sentence whose main verb is cognitive (确认, 发现, verified, found) or
 * operational (设置, 重启, set, restart), with an object, is a candidate (docs/design.md, Rules: the hard
 * filter). English forms map to their lemma, which the reason shows.
 */

/** Chinese cognitive verbs: "确认是驱动问题", "实测 1500ms 够用", "根因是连接池耗尽". */
export const COGNITIVE_ZH = [
  '确认',
  '验证',
  '证实',
  '发现',
  '建议',
  '决定',
  '查明',
  '定位到',
  '排查出',
  '实测',
  '测得',
  '结论是',
  '结论',
  '原因是',
  '根因',
  '根本原因',
  '确定是',
  '判断为',
  '证明',
  '推荐',
  '注意到',
];

/** English cognitive verb forms and their lemma: "we verified the fix", "I found the leak". */
export const COGNITIVE_EN: Record<string, string> = {};
for (const [lemma, forms] of Object.entries({
  confirm: ['confirm', 'confirms', 'confirmed', 'confirming'],
  verify: ['verify', 'verifies', 'verified', 'verifying'],
  find: ['found', 'finds'],
  discover: ['discover', 'discovers', 'discovered'],
  decide: ['decide', 'decides', 'decided'],
  recommend: ['recommend', 'recommends', 'recommended'],
  determine: ['determine', 'determined'],
  identify: ['identify', 'identified'],
  prove: ['proved', 'proven'],
  measure: ['measured'],
  notice: ['noticed'],
  observe: ['observed'],
  realize: ['realized', 'realised'],
  learn: ['learned', 'learnt'],
  diagnose: ['diagnosed'],
  test: ['tested'],
})) {
  for (const f of forms) COGNITIVE_EN[f] = lemma;
}
/** English cognitive phrases: "the root cause is…", "it turned out…", "the fix was…". */
export const COGNITIVE_EN_PHRASE = /\broot cause\b|\bturn(?:s|ed) out\b|\bthe fix (?:is|was)\b/i;

/** Chinese operational verbs: "超时设为 1500ms", "重启网关", "回滚到 2.3". */
export const OPERATIONAL_ZH = [
  '设置',
  '设为',
  '设成',
  '设定',
  '调为',
  '调成',
  '调到',
  '调整',
  '调大',
  '调小',
  '调高',
  '调低',
  '改为',
  '改成',
  '修改',
  '更改',
  '重启',
  '部署',
  '升级',
  '降级',
  '迁移',
  '回滚',
  '配置',
  '安装',
  '卸载',
  '启用',
  '禁用',
  '开启',
  '关闭',
  '打开',
  '切换',
  '替换',
  '扩容',
  '缩容',
  '清理',
  '清空',
  '删除',
  '创建',
  '备份',
  '恢复',
  '发布',
  '上线',
  '下线',
  '合并',
  '提交',
  '绕过',
  '绕开',
  '增加',
  '减少',
  '限制',
  '固定',
  '锁定',
  '挂载',
  '映射',
  '导出',
  '导入',
  '打包',
  '构建',
  '编译',
  '运行',
  '执行',
  '加上',
  '加到',
];

/**
 * English operational verbs, every inflection mapped to its lemma ("restarted", "restarting" ->
 * restart): "we bumped the pool to 50", "restart the gateway".
 */
export const OPERATIONAL_EN: Record<string, string> = {};
{
  const regular = [
    'change',
    'restart',
    'deploy',
    'upgrade',
    'downgrade',
    'migrate',
    'configure',
    'install',
    'uninstall',
    'enable',
    'disable',
    'switch',
    'replace',
    'bump',
    'increase',
    'decrease',
    'raise',
    'lower',
    'update',
    'pin',
    'lock',
    'mount',
    'export',
    'import',
    'compile',
    'execute',
    'reboot',
    'reload',
    'rotate',
    'scale',
    'backup',
    'restore',
    'release',
    'merge',
    'revert',
    'patch',
    'flush',
    'purge',
    'tune',
    'adjust',
    'move',
    'rename',
    'add',
    'remove',
    'delete',
    'create',
    'limit',
    'cap',
    'redeploy',
    'reinstall',
    'rollback',
    'provision',
    'bypass',
  ];
  for (const v of regular) {
    const base = v.endsWith('e') ? v.slice(0, -1) : v;
    const dbl = /^(?:pin|cap|lock)$/.test(v) && !v.endsWith('k') ? v + v.slice(-1) : v;
    const past = v.endsWith('e') ? `${v}d` : v.endsWith('ch') || v.endsWith('sh') ? `${v}ed` : `${dbl}ed`;
    for (const f of [
      v,
      `${v}s`,
      v.endsWith('ch') || v.endsWith('sh') ? `${v}es` : `${v}s`,
      past,
      `${base}ing`,
      `${dbl}ing`,
    ])
      OPERATIONAL_EN[f] = v;
  }
  for (const [lemma, forms] of Object.entries({
    set: ['set', 'sets', 'setting'],
    run: ['run', 'runs', 'ran', 'running'],
    build: ['build', 'builds', 'built', 'building'],
    roll: ['roll back', 'rolled back', 'rolling back'],
    map: ['map', 'maps', 'mapped', 'mapping'],
  })) {
    for (const f of forms) OPERATIONAL_EN[f] = lemma;
  }
}
/** Irregular past forms that are also present or nouns ("set", "ran"): past only with a past context. */
export const EN_PAST_IRREGULAR = new Set([
  'ran',
  'built',
  'found',
  'set',
  'chose',
  'chosen',
  'learnt',
  'proven',
]);

/** Penn Treebank tags that can be the subject before an English verb ("we", "the team"). */
export const EN_SUBJECT_TAGS = /^(?:PRP|NN|NNS|NNP|NNPS|DT|CD|WP)$/;
/** Penn Treebank tags that can start the object after an English verb. */
export const EN_OBJECT_TAGS = /^(?:NN|NNS|NNP|NNPS|CD|JJ|JJR|JJS|PRP|PRP\$|DT|VBG|RB|IN|TO|FW|SYM)$/;
/** Words right before a token that make it a verb whatever its tag: "we set", "to restart", "please run". */
export const EN_VERB_CONTEXT = new Set([
  'i',
  'we',
  'you',
  'they',
  'he',
  'she',
  'it',
  'to',
  'will',
  "'ll",
  'would',
  'should',
  'must',
  'can',
  'could',
  'please',
  'always',
  'never',
  'then',
  'and',
  'also',
  'just',
  'already',
  'have',
  'has',
  'had',
  'was',
  'were',
  'is',
  'are',
  'be',
  'been',
  'not',
  "don't",
  "didn't",
  'did',
  'finally',
  'first',
  'team',
]);

/** Chinese verbs that are states, not actions ("是", "有", "觉得"): no event without another verb. */
export const STATIVE_ZH = new Set(['是', '有', '在', '觉得', '感觉', '想', '像', '叫', '要']);
