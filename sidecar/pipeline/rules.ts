/**
 * Stage 3: rules. The hard rule filter of seed 003 ("第一级：规则引擎硬过滤"), for Chinese and English:
 * split messages into sentences (Intl.Segmenter), tag parts of speech (jieba for Chinese, en-pos
 * for English) where a verb's shape matters, then keep or drop each sentence and say which rule
 * decided. Kept sentences become {@link Candidate}s with a category, `is_actionable`, `source_ref`
 * and `pending` for explicit "记一下 / remember this" requests; score, confidence and the review
 * gate are filled by the score stage. Pure: no I/O (jieba's dictionary ships in the package).
 */
import { createRequire } from 'node:module';
import { normalizeText, type Category, type SourceType } from '../model';
import { jieba } from '../util/jieba';
import { isSmallTalk, meaningfulLength, smallTalkKey, SMALL_TALK } from './lexicon';
import type { Candidate, CandidateFeatures, Dropped, NormalizedMessage, Role } from './types';

// ---------------------------------------------------------------------------------------------
// Taggers (loaded lazily: jieba's dictionary costs ~200 ms, and many sessions never need it)

interface TaggedWord {
  word: string;
  tag: string;
}
interface JiebaLike {
  tag(sentence: string, hmm?: boolean): TaggedWord[];
}
type EnTagFn = (tokens: string[]) => string[];

const requireHere = createRequire(__filename);
let enTag: EnTagFn | undefined;

function zhTagger(): JiebaLike {
  return jieba();
}

function enTagger(): EnTagFn {
  if (!enTag) {
    const { Tag } = requireHere('en-pos') as typeof import('en-pos');
    enTag = (tokens) => (tokens.length ? new Tag(tokens).initial().smooth().tags : []);
  }
  return enTag;
}

type Tagged = Array<TaggedWord & { start: number }>;

/** Small memo: one sentence is tagged by several rules (verb shape, event, candidate features). */
function memo(fn: (text: string) => Tagged): (text: string) => Tagged {
  const cache = new Map<string, Tagged>();
  return (text) => {
    let v = cache.get(text);
    if (!v) {
      v = fn(text);
      if (cache.size >= 256) cache.delete(cache.keys().next().value!);
      cache.set(text, v);
    }
    return v;
  };
}

/** Chinese words with jieba POS tags and their character offsets. */
export const tagChinese = memo((text: string): Tagged => {
  let pos = 0;
  return zhTagger()
    .tag(text, true)
    .map((w) => {
      const at = text.indexOf(w.word, pos);
      const start = at >= 0 ? at : pos;
      pos = start + w.word.length;
      return { ...w, start };
    });
});

const EN_TOKEN_RE = /[A-Za-z]+(?:['’][A-Za-z]+)?|\d+(?:[.,:]\d+)*[A-Za-z%]*|[^\sA-Za-z\d]/g;

/** English tokens with Penn Treebank tags (en-pos) and their character offsets. */
export const tagEnglish = memo((text: string): Tagged => {
  const toks: Array<{ word: string; start: number }> = [];
  for (const m of text.matchAll(EN_TOKEN_RE)) toks.push({ word: m[0], start: m.index });
  const tags = enTagger()(toks.map((t) => t.word));
  return toks.map((t, i) => ({ ...t, tag: tags[i] ?? 'NN' }));
});

// ---------------------------------------------------------------------------------------------
// Sentence segmentation

const segmenter = new Intl.Segmenter('zh', { granularity: 'sentence' });
const TITLE_ABBREV =
  /\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|No|Fig|Vol|Ch|Sec|Eq|approx|vs|etc|e\.g|i\.e|cf|incl)\.\s*$/i;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * Split text into sentences: lines first (chat lines, list items), then `Intl.Segmenter`
 * (granularity "sentence"), with fix-ups: no split after abbreviations ("Dr. Wang", "e.g."),
 * inside URLs or numbers, and a split where an ASCII full stop runs straight into Chinese
 * ("设为1500ms.请重启"). List markers ("- ", "1. ", "1、") are removed.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine
      .replace(/^\s*(?:[-*•·>]+\s+|\d{1,2}[.)]\s+|\d{1,2}、\s*|[（(]\d{1,2}[)）]\s*)/, '')
      .trim();
    if (!line) continue;
    const pieces: string[] = [];
    for (const { segment } of segmenter.segment(line)) {
      const prev = pieces[pieces.length - 1];
      if (
        prev !== undefined &&
        (TITLE_ABBREV.test(prev) || // Dr. Wang
          (/https?:\/\/\S*$/.test(prev.trimEnd()) && !/\s$/.test(prev)) || // split inside a URL
          (/\d[.]$/.test(prev) && /^\d/.test(segment))) // 1.5
      ) {
        pieces[pieces.length - 1] = prev + segment;
      } else {
        pieces.push(segment);
      }
    }
    for (const p of pieces) {
      // "1500ms.请重启": ASCII terminator glued to Chinese.
      for (const q of p.split(/(?<=[\p{L}\p{N}][.!?])(?=[\u3400-\u9fff])/u)) {
        const s = q.trim();
        if (s) out.push(s);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lexicons (cue -> first match wins; the matched text is reported in the reason)

const rx = (parts: string[], flags = ''): RegExp => new RegExp(parts.join('|'), flags);
const words = (list: string[]): string => `\\b(?:${list.join('|')})\\b`;

/** Explicit requests to remember (seed 003: 请记录 / 把这个加到知识库 / 下次提醒我). */
const EXPLICIT_HEAD_ZH =
  /^(?:请|麻烦|帮我|帮忙|你)*(?:(?:下次|以后)(?:记得)?提醒我(?:一下)?|提醒我(?:一下)?|(?:记录一下|记录下来|记一下|记下来|记住|记着|备忘一下)|(?:记录|记下|备忘)(?=[\s:：,，]|$)|(?:把)?(?:这个|这条|这|它|以下|下面(?:这条)?)?(?:加到|加入|存到|存入|放到|写到|写入|记到|添加到)(?:知识库|记忆库|记忆|备忘录|长期记忆)(?:里|中)?)(?:一下)?[\s:：,，、]*/;
const EXPLICIT_TAIL_ZH =
  /[\s,，:：]*(?:请|麻烦|帮我)*(?:记录一下|记一下|记下来|记住|记住它|记住这个|(?:把)?(?:这个|这条|它)?(?:加到|加入|存到|存入)(?:知识库|记忆库|记忆)(?:里|中)?)[。.!！]*$/;
const EXPLICIT_HEAD_EN =
  /^(?:please[\s,]+|pls[\s,]+)?(?:remember\s+(?:that|this)?|note\s+this|take\s+note(?:\s+of\s+this)?|make\s+a\s+note(?:\s+of\s+this|\s+that)?|keep\s+in\s+mind(?:\s+that)?|save\s+this(?:\s+to\s+memory)?|add\s+(?:this|that)\s+to\s+(?:the\s+)?(?:knowledge\s+base|kb|memory)|remind\s+me(?:\s+next\s+time)?(?:\s+to|\s+that)?|for\s+the\s+record)\b[\s:,;-]*/i;
const EXPLICIT_TAIL_EN =
  /[\s,;:-]*(?:please\s+)?(?:remember\s+(?:that|this)|note\s+this|add\s+(?:this|it)\s+to\s+(?:the\s+)?(?:knowledge\s+base|kb|memory))[.!]*$/i;
const REMINDER = /提醒|remind/i;
/** Demonstratives that only point back at what was said before ("记一下这个"). */
const ONLY_POINTER =
  /^(?:这个|这条|这|它|以上|上面的?|刚才的?|this|that|it|the above|above)?[\s。.!！:：]*$/i;

const HEDGE_ZH = rx([
  '(?<!不)可能(?!性为零)',
  '大概',
  '也许',
  '好像',
  '似乎',
  '或许',
  '估计',
  '说不定',
  '不确定',
  '不太确定',
  '貌似',
  '我猜',
  '猜测',
  '不一定',
  '应该是',
  '应该会',
  '应该能',
  '应该没',
  '没准',
]);
const HEDGE_EN = rx(
  [
    words([
      'maybe',
      'probably',
      'perhaps',
      'possibly',
      'might',
      'likely',
      'unlikely',
      'presumably',
      'apparently',
    ]),
    '\\bi (?:guess|think|suppose|believe|assume)\\b',
    '\\bnot (?:sure|certain)\\b',
    '\\bmay be\\b',
    '\\bcould be\\b',
    '\\bseems?(?: like| to)?\\b',
    '\\bshould (?:work|be fine|be ok(?:ay)?|help)\\b',
    "\\bi'm not sure\\b",
  ],
  'i',
);

const VENT = rx(
  [
    '这破',
    '破(?:驱动|系统|玩意|电脑|机器|软件|代码|服务器|网络)',
    '又(?:崩|挂|炸|死机)了',
    '烂(?:透|死)',
    '垃圾',
    '坑爹',
    '太坑',
    '真坑',
    '卧槽',
    '我靠',
    '妈的',
    '尼玛',
    '无语',
    '气死',
    '烦死',
    '服了',
    '什么鬼',
    '见鬼',
    '受不了',
    '崩溃了',
    '\\bwtf\\b',
    '\\bdamn\\b',
    '\\bugh+\\b',
    '\\bargh+\\b',
    '\\bstupid\\b',
    '\\bsucks?\\b',
    '\\bcrap\\b',
    '\\bfuck\\w*',
    '\\bshit\\w*',
    '\\bffs\\b',
    '\\bannoying\\b',
    '\\bhate (?:this|it)\\b',
  ],
  'i',
);

const DURABLE = rx(
  [
    '以后',
    '今后',
    '下次',
    '每次',
    '总是',
    '一直',
    '一律',
    '始终',
    '永远',
    '默认',
    '不要',
    '别',
    '禁止',
    '统一',
    words([
      'always',
      'never',
      'from now on',
      'going forward',
      'in future',
      'in the future',
      'every time',
      'whenever',
      'by default',
      "don't",
      'do not',
    ]),
  ],
  'i',
);
const ONE_OFF_ZH =
  /^(?:请|麻烦|你)*(?:帮我|帮忙|给我|替我|能不能|能否|可以帮|可不可以|你能|你可以|看看|查查)|一下(?!子)|看看/;
const ONE_OFF_EN =
  /^(?:please\s+|pls\s+)?(?:can you|could you|would you|will you|help me|let'?s|show me|tell me|give me|check|look at|find|search|explain|write|generate|summari[sz]e|translate|draft|please)\b/i;

const STYLE = rx(
  [
    '(?:回答|回复|输出|解释|说明|总结|答复)[^。！？!?]{0,12}?(?:简洁|简短|简单点|详细|列表|表格|中文|英文|markdown|要点|分点)',
    '(?:用|以)(?:简洁|简短|详细|列表|表格|中文|英文|markdown|要点|分点)[^。！？!?]{0,8}?(?:回答|回复|输出|形式|方式|格式)',
    '\\b(?:answers?|repl(?:y|ies)|respon(?:d|ses?)|explanations?|output)\\b[^.!?]{0,24}?\\b(?:concise|brief|short|detailed|bullet(?: points)?|lists?|tables?|in chinese|in english|terse|markdown)\\b',
    '\\b(?:keep it|be) (?:concise|brief|short|terse)\\b',
  ],
  'i',
);
const PREFERENCE_ZH =
  /^(?:比较|更|最|很|超)?(?:喜欢|偏好|偏爱|习惯用|讨厌|不喜欢|爱用|惯用)|我(?:们)?(?:比较|更|一般|平时|通常|一直|总是|向来|个人|最)?(?:喜欢|偏好|偏爱|习惯|倾向于?|讨厌|不喜欢|爱用|常用|惯用|只用|一直用|都用)|(?:不要|别|不用|不必)(?:再)?给我(?:推荐|用|建议|写)|我的(?:偏好|习惯)/;
const PREFERENCE_EN =
  /\bI\s+(?:(?:always|usually|mostly|generally|really|only|normally|typically|much|strongly)\s+)?(?:prefer|like|love|hate|dislike|use|work with|stick with|go with|write|edit)\b|\bmy\s+(?:favou?rite|preferred|go-to|default)\b|\bI(?:'m| am)\s+(?:used to|a fan of|comfortable with)\b|\b(?:never|don't|do not|stop)\s+(?:suggest|recommend|give|show|offer)(?:ing)?\b/i;
const IDENTITY_ZH =
  /我(?:们)?(?:是|在|现在是|目前是)(?!说|想|不是|觉得|问|看)(?:一[名个位])?[^，。,]{0,14}?(?:工程师|开发|程序员|架构师|运维|测试|经理|负责人|学生|研究员|设计师|产品|DBA|SRE|组长|主管|专家|实习生|新人|leader)|我(?:负责|在做|主要做|目前在做|正在做|从事|叫)|我的(?:职位|角色|岗位|工作|项目)是/;
const IDENTITY_EN =
  /\bI(?:'m| am)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:engineer|developer|dev|programmer|architect|admin|administrator|sre|devops|manager|lead|student|researcher|designer|analyst|scientist|maintainer|owner|intern|consultant)\b|\bI\s+work\s+(?:on|at|as|in|for)\b|\bmy\s+(?:role|job|team|title|position)\s+is\b|\bI(?:'m| am)\s+(?:responsible for|in charge of|working on)\b/i;

const DECISION_ZH =
  /决定|定了|(?:最终)?确定(?:用|采用|使用|为)|选定|选择了|采用|统一(?:用|使用|为|采用)|改用|换成|(?:以后|今后)(?:都|一律|统一)?(?:用|使用|不用|改用)|最终方案|方案是|定下来/;
const DECISION_EN =
  /\b(?:we|i|the team|team)\s+(?:have\s+|'ve\s+)?(?:decided|agreed|chose|chosen|picked|settled on|went with|are going with|will go with|standardi[sz]ed on)\b|\bdecision\s*:|\bgoing forward\b|\bfrom now on\b|\bstandardi[sz]e on\b|\bwe(?:'ll| will) use\b/i;

const CORRECTION_ZH =
  /不是[^，。]{1,20}?而是|其实是|其实|实际上|更正|纠正|搞错了|说错了|弄错了|记错了|应该是[^，。]{1,20}?(?:不是|而不是)|不对[，,]|错了[，,]?应该/;
const CORRECTION_EN =
  /\bactually\b|\bcorrection\b|\bto correct\b|\bi was wrong\b|\bthat'?s wrong\b|\bnot\s+[^,.;]{1,30}\s+but\b|\binstead of\b|\brather than\b/i;

const RULE_ZH =
  /必须|务必|一定要|不得|不能|禁止|不要|别(?!人|的|处)|不准|严禁|永远不要|总是|每次|一律|始终|遵循|遵守|规范|约定|原则上|记得|需要先|前先|之前先|先[^，。]{1,20}?再|完[^，。]{0,4}?(?:再|后)|之后再|默认|应该(?!是|会|能|没)|要用|统一/;
const RULE_EN =
  /\b(?:must|always|never|don't|do not|should(?:n't| not)?|make sure|ensure|remember to|by default|every time|whenever|convention|rule of thumb|follow|required to|need to)\b|\bbefore\s+[^,.]{1,40}?,?\s*(?:run|deploy|test|build|check)|\bfirst\b[^.]{1,40}?\bthen\b/i;

const COGNITIVE_ZH = [
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
const COGNITIVE_EN: Record<string, string> = {};
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
const COGNITIVE_EN_PHRASE = /\broot cause\b|\bturn(?:s|ed) out\b|\bthe fix (?:is|was)\b/i;

const OPERATIONAL_ZH = [
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
const OPERATIONAL_EN: Record<string, string> = {};
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
const EN_PAST_IRREGULAR = new Set(['ran', 'built', 'found', 'set', 'chose', 'chosen', 'learnt', 'proven']);

const TIME_ZH =
  /昨天|前天|今天|今早|今晚|刚才|刚刚|上周|上个?星期|上个?月|上次|去年|前几天|周[一二三四五六日末]|星期[一二三四五六日天]|\d{1,2}月\d{1,2}[日号]|凌晨|上午|下午|晚上|早上|已经|终于|之前|那天/;
const TIME_EN =
  /\b(?:yesterday|today|tonight|this (?:morning|afternoon|week)|last (?:week|night|month|year|time|sprint|release|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|earlier today|just now|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|\d+ (?:days?|weeks?|hours?) ago|already|finally)\b/i;
const DONE_ZH =
  /完成|搞定|修好|修复了|解决了|上线了|发布了|迁移了|升级了|跑通了|部署了|(?:[\u3400-\u9fff])了(?:[，。！!,]|$)|到了/;
const DONE_EN =
  /\b(?:finished|completed|shipped|released|fixed|resolved|merged|deployed|migrated|upgraded|launched|rolled out|restarted|rebuilt|replaced|switched|moved)\b/i;

/** Assistant messages: only decisions and confirmed facts are kept. */
const ASSISTANT_KEEP =
  /确认|验证|证实|查明|定位到|根因|根本原因|原因是|结论|决定|已修复|已解决|\b(?:confirmed|verified|root cause|turn(?:s|ed) out|the fix (?:is|was)|decided|resolved by|fixed by|we agreed)\b/i;

/** Unverified hard compatibility claims (seed 003: "PLC-3000 必须用 Windows Server 2012 驱动"). */
const NECESSITY = /必须|只能|一定要|只有|\b(?:must|only works?|has to|have to|requires?)\b/i;
const COMPAT_SUBJECT =
  /驱动|版本|兼容|系统|固件|补丁|\b(?:driver|version|compatib\w*|firmware|os|windows|linux|kernel|patch)\b|windows|linux/i;
const EVIDENCE =
  /确认|验证|实测|测试通过|证实|查明|官方|手册|文档|\b(?:confirmed|verified|tested|measured|documented|according to|per the)\b/i;

const ZH_TECH =
  /阈值|超时|端口|内存|磁盘|版本|线程|连接|并发|延迟|带宽|缓存|数据库|服务器|集群|节点|接口|协议|驱动|固件|配置|参数|日志|队列|进程|容器|镜像|心跳|重试|频率|波特率|地址|网关|证书|分区|索引|副本|吞吐|速率|采样|寄存器|站号|通讯|通信|报文|字段|间隔|周期|轮询|编码|分辨率|限流|上限|下限|大小|容量/g;
const EN_TECH_WORDS = new Set([
  'timeout',
  'timeouts',
  'port',
  'ports',
  'latency',
  'threshold',
  'memory',
  'cpu',
  'gpu',
  'ram',
  'disk',
  'heap',
  'thread',
  'threads',
  'pool',
  'connection',
  'connections',
  'retry',
  'retries',
  'interval',
  'buffer',
  'cache',
  'ttl',
  'limit',
  'quota',
  'replica',
  'replicas',
  'shard',
  'shards',
  'partition',
  'partitions',
  'batch',
  'queue',
  'worker',
  'workers',
  'version',
  'release',
  'server',
  'service',
  'database',
  'db',
  'index',
  'node',
  'nodes',
  'cluster',
  'pod',
  'pods',
  'container',
  'image',
  'baud',
  'rate',
  'bandwidth',
  'throughput',
  'qps',
  'rps',
  'heartbeat',
  'driver',
  'firmware',
  'protocol',
  'endpoint',
  'api',
  'config',
  'configuration',
  'parameter',
  'setting',
  'log',
  'logs',
  'kernel',
  'socket',
  'vim',
  'nano',
  'emacs',
  'redis',
  'nginx',
  'docker',
  'kubernetes',
  'python',
  'java',
  'node',
  'postgres',
  'mysql',
  'chroma',
  'chromadb',
  'git',
  'linux',
  'windows',
  'macos',
  'jvm',
  'gc',
  'vscode',
  'typescript',
  'javascript',
  'rust',
  'go',
  'golang',
  'modbus',
  'plc',
  'tcp',
  'udp',
  'http',
  'https',
  'grpc',
  'ssh',
  'tls',
  'ssl',
  'dns',
  'cron',
  'systemd',
  'gateway',
  'proxy',
  'certificate',
  'token',
  'tokens',
  'embedding',
  'vector',
  'model',
  'prompt',
  'dimension',
  'dimensions',
  'batch',
]);

const NUMBER_RE =
  /(?<![A-Za-z0-9_.\-/#])v?\d+(?:\.\d+)*(?:\s?(?:ms|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|kb|mb|gb|tb|kib|mib|gib|k|m|g|%|x|hz|khz|mhz|ghz|v|a|w|ma|rpm|qps|rps|tps|fps|px|°c|℃|毫秒|秒|分钟|小时|天|次|个|条|台|核|倍|度|字节|字符|行|轮|兆|位))?(?![A-Za-z0-9_])/gi;
const DATE_LIKE =
  /\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}[日号]?)?(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}:\d{2}(?::\d{2})?|\d{4}年|\d{1,2}月\d{1,2}[日号]?|第\s*\d+\s*[页章节条]|\b(?:page|p\.|section|chapter)\s*[\d.]+|(?:RFC|PEP|ISO|GB(?:\/T)?|IEEE)\s?-?\d+/gi;

// ---------------------------------------------------------------------------------------------
// Features

/** Information-weighted length: a Chinese character counts 2, other letters and digits 1. */
export function weightedLength(text: string): number {
  let n = 0;
  for (const ch of text) {
    if (CJK.test(ch)) n += 2;
    else if (/[\p{L}\p{N}]/u.test(ch)) n += 1;
  }
  return n;
}

function isChinese(text: string): boolean {
  return CJK.test(text);
}

/** First regex match as the cue shown in reasons. */
function cue(re: RegExp, text: string): string | undefined {
  const m = re.exec(text);
  return m ? m[0].trim() : undefined;
}

/** Numbers that are values (1500ms, port 502, v1.2.3, 3.11), not dates, times, page numbers or parts of identifiers. */
export function findNumbers(text: string): string[] {
  const stripped = text.replace(DATE_LIKE, ' ');
  return [...stripped.matchAll(NUMBER_RE)].map((m) => m[0]);
}

/** Technical terms: identifiers (k8s, PLC-3000, Modbus-TCP), acronyms (TCP, JVM), known tech words, Chinese tech nouns. */
export function findTechTerms(text: string): string[] {
  const out: string[] = [];
  const zh = isChinese(text);
  const noUrls = text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  for (const m of noUrls.matchAll(/(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-_./][A-Za-z0-9]+)*/g)) {
    const w = m[0];
    if (
      /\d/.test(w) ||
      /[-_./]/.test(w) ||
      /^[A-Z]{2,}s?$/.test(w) ||
      /[a-z][A-Z]/.test(w) ||
      EN_TECH_WORDS.has(w.toLowerCase()) ||
      (zh && w.length >= 2) // English words inside Chinese text are almost always names of things
    ) {
      out.push(w);
    }
  }
  for (const m of noUrls.matchAll(ZH_TECH)) out.push(m[0]);
  return out;
}

export interface SourceRefResult {
  refs: string[];
  cue?: string;
}

const REF_MARKER =
  /参考|参照|依据|根据|来自|出自|引自|详见|见|according to|\bsee\b|\bper\b|\brefer to\b|\bas described in\b|\bsource:|\bref:|\bcf\./gi;
const DOC_NOUN_ZH =
  /手册|文档|规范|标准|说明书|指南|wiki|README|白皮书|章节|报告|纪要|第\s*\d+\s*[页章节条]|规格书|datasheet/i;
const DOC_NOUN_EN =
  /\b(?:manual|docs?|documentation|guide|spec|specification|handbook|datasheet|readme|wiki|page\s*\d+|section\s*[\d.]+|chapter\s*\d+|runbook|playbook|report|issue\s*#?\d+|ticket|rfc|changelog|release notes)\b/i;

function pageOf(rest: string): string {
  const zh = /^[^，。；,;]{0,12}?第\s*(\d+(?:\.\d+)*)\s*([页章节条])/.exec(rest);
  if (zh) return `第${zh[1]}${zh[2]}`;
  const en = /^[^.;]{0,16}?\b(?:p\.|pp\.|page|pages)\s*(\d+)/i.exec(rest);
  if (en) return ` p.${en[1]}`;
  const sec = /^[^.;]{0,16}?\bsection\s*(\d+(?:\.\d+)*)/i.exec(rest);
  if (sec) return ` §${sec[1]}`;
  return '';
}

/**
 * Referenced documents, links and pages after 参考/依据/来自/according to/see/per:
 * `url:https://...`, `doc:《XX手册》第12页`, `file:docs/setup.md`, `doc:RFC 3339`.
 */
export function extractSourceRefs(text: string): SourceRefResult {
  const refs: string[] = [];
  let firstCue: string | undefined;
  REF_MARKER.lastIndex = 0;
  for (const m of text.matchAll(REF_MARKER)) {
    const marker = m[0];
    const rest = text.slice(m.index + marker.length, m.index + marker.length + 200);
    const before = refs.length;
    const url = /^[^。；;]{0,40}?(https?:\/\/[^\s，。；、）)》"'<>]+)/.exec(rest);
    if (url) {
      refs.push(`url:${url[1]!.replace(/[.,;:!?]+$/, '')}`);
    } else {
      const title = /^[^。；;]{0,20}?(《[^》]{1,60}》)/.exec(rest);
      const file =
        /^[^。；;]{0,30}?((?:[\w.-]+\/)*[\w-]+\.(?:md|pdf|docx?|txt|rst|html?|xlsx?|pptx?|ya?ml|json|toml|ts|js|py|go|rs)(?::\d+)?)\b/i.exec(
          rest,
        );
      const std = /^[^。；;]{0,20}?\b((?:RFC|PEP|ISO|IEC|GB(?:\/T)?|IEEE)\s?-?\d+(?:[.-]\d+)*)/i.exec(rest);
      if (title) {
        refs.push(`doc:${title[1]}${pageOf(rest.slice(title.index + title[0].length))}`);
      } else if (file) {
        refs.push(`file:${file[1]}`);
      } else if (std) {
        refs.push(`doc:${std[1]!.replace(/\s+/, ' ')}${pageOf(rest.slice(std.index + std[0].length))}`);
      } else {
        const phrase = /^[\s:：]*([^，。；,;!?！？()（）]{2,60})/.exec(rest);
        if (phrase) {
          let p = phrase[1]!.trim();
          const zh = isChinese(p);
          if (!zh)
            p = p
              .replace(/[.]\s.*$/, '')
              .replace(/^(?:the|our|this)\s+/i, '')
              .replace(/\.$/, '');
          if ((zh ? DOC_NOUN_ZH : DOC_NOUN_EN).test(p)) {
            // Chinese: cut after the document noun / page ("依据厂家手册第12页修改" -> 厂家手册第12页).
            if (zh) {
              const end =
                /^.*?(?:手册|文档|规范|标准|说明书|指南|白皮书|报告|纪要|规格书|README|wiki)(?:\s*第\s*\d+(?:\.\d+)*\s*[页章节条])?/i.exec(
                  p,
                );
              if (end) p = end[0];
            }
            refs.push(`doc:${p}`);
          }
        }
      }
    }
    if (refs.length > before) firstCue ??= marker.trim();
  }
  return firstCue ? { refs: [...new Set(refs)], cue: firstCue } : { refs: [] };
}

/** The verb cue of a kind, checked for a verb-object (and, in English, subject-verb) shape. */
interface VerbHit {
  verb: string;
  kind: 'cognitive' | 'operational';
  past: boolean;
}

const EN_SUBJECT_TAGS = /^(?:PRP|NN|NNS|NNP|NNPS|DT|CD|WP)$/;
const EN_OBJECT_TAGS = /^(?:NN|NNS|NNP|NNPS|CD|JJ|JJR|JJS|PRP|PRP\$|DT|VBG|RB|IN|TO|FW|SYM)$/;
const EN_VERB_CONTEXT = new Set([
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

function findVerbZh(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  const list = kind === 'cognitive' ? COGNITIVE_ZH : OPERATIONAL_ZH;
  let best: { verb: string; at: number } | undefined;
  for (const v of list) {
    const at = text.indexOf(v);
    if (at >= 0 && (!best || at < best.at)) best = { verb: v, at };
  }
  if (!best) return undefined;
  // Verb-object shape: something nominal after the verb (jieba tags), subject may be dropped (pro-drop).
  const after = best.at + best.verb.length;
  const tagged = tagChinese(text);
  const hasObject = tagged.some(
    (w) =>
      w.start >= after &&
      /^(?:n|nr|ns|nt|nz|nrt|ng|vn|eng|m|mq|r|a|an|i|l|j|t|v|vd|q|x)$/.test(w.tag) &&
      meaningfulLength(w.word) > 0,
  );
  if (!hasObject) return undefined;
  const tail = text.slice(best.at, best.at + best.verb.length + 8);
  const past = /了|过/.test(tail) || /已经|已/.test(text.slice(Math.max(0, best.at - 4), best.at));
  return { verb: best.verb, kind, past };
}

function findVerbEn(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  const lex = kind === 'cognitive' ? COGNITIVE_EN : OPERATIONAL_EN;
  if (kind === 'cognitive') {
    const phrase = COGNITIVE_EN_PHRASE.exec(text);
    if (phrase) return { verb: phrase[0].toLowerCase(), kind, past: /ed\b|was/.test(phrase[0]) };
  }
  const toks = tagEnglish(text);
  for (let i = 0; i < toks.length; i++) {
    const w = toks[i]!.word.toLowerCase();
    const lemma =
      lex[w] ??
      (kind === 'operational' &&
      (w === 'roll' || w === 'rolled') &&
      toks[i + 1]?.word.toLowerCase() === 'back'
        ? 'roll back'
        : undefined);
    if (!lemma) continue;
    const prev = toks[i - 1]?.word.toLowerCase();
    const tag = toks[i]!.tag;
    const isVerb = tag.startsWith('VB') || i === 0 || (prev !== undefined && EN_VERB_CONTEXT.has(prev));
    if (!isVerb) continue;
    const imperative =
      i === 0 ||
      prev === 'please' ||
      prev === 'then' ||
      prev === 'and' ||
      prev === 'always' ||
      prev === 'never' ||
      prev === 'first';
    const hasSubject = imperative || toks.slice(0, i).some((t) => EN_SUBJECT_TAGS.test(t.tag));
    const hasObject = toks.slice(i + 1).some((t) => EN_OBJECT_TAGS.test(t.tag) && /[A-Za-z0-9]/.test(t.word));
    if (!hasSubject || !hasObject) continue;
    const past =
      /ed$/.test(w) ||
      (EN_PAST_IRREGULAR.has(w) &&
        !imperative &&
        (tag === 'VBD' ||
          tag === 'VBN' ||
          prev === 'was' ||
          prev === 'were' ||
          prev === 'have' ||
          prev === 'has' ||
          prev === 'had'));
    return { verb: w, kind, past };
  }
  return undefined;
}

function findVerb(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  return isChinese(text) ? (findVerbZh(text, kind) ?? findVerbEn(text, kind)) : findVerbEn(text, kind);
}

// ---------------------------------------------------------------------------------------------
// Classification

/** Keep decision of one sentence (before scoring). */
interface Keep {
  keep: true;
  rule: string;
  cue: string;
  category: Category;
  verb?: VerbHit;
}
interface Drop {
  keep: false;
  reason: string;
}
type Decision = Keep | Drop;

const drop = (rule: string, c?: string): Drop => ({
  keep: false,
  reason: c ? `drop:${rule}(${c})` : `drop:${rule}`,
});
const keep = (rule: string, c: string, category: Category, verb?: VerbHit): Keep => ({
  keep: true,
  rule,
  cue: c,
  category,
  verb,
});

/** Remove leading greetings/acks ("你好，", "Thanks! ", "好的，") that precede real content. */
export function stripLeadingSmallTalk(text: string): string {
  let s = text;
  for (let i = 0; i < 3; i++) {
    const m = /^([^,，!！。.;；:：]{1,12})[,，!！。.;；:：~～]+\s*/.exec(s);
    if (!m || m[0].length >= s.length || !isSmallTalk(m[1]!)) break;
    s = s.slice(m[0].length);
  }
  return s;
}

function isQuestion(text: string): boolean {
  const t = text.replace(/[\s\p{So}]+$/u, '');
  if (/[?？]$/.test(t)) return true;
  return /(?:吗|么|呢)$/.test(t.replace(/[。.!！]+$/, '')) && !/什么都|怎么样都/.test(t);
}

/** Keep rules that apply to any role (in this order). */
function keepRules(text: string, zh: boolean): Keep | undefined {
  let c: string | undefined;
  if ((c = cue(STYLE, text))) return keep('style', c, 'persona');
  if ((c = cue(zh ? PREFERENCE_ZH : PREFERENCE_EN, text) ?? (zh ? cue(PREFERENCE_EN, text) : undefined)))
    return keep('preference', c, 'persona');
  if ((c = cue(zh ? IDENTITY_ZH : IDENTITY_EN, text))) return keep('identity', c, 'persona');
  if ((c = cue(zh ? DECISION_ZH : DECISION_EN, text))) return keep('decision', c, 'instruction');
  return undefined;
}

function laterRules(text: string, zh: boolean, role: Role): Decision {
  let c: string | undefined;
  const timed = cue(zh ? TIME_ZH : TIME_EN, text);
  if ((c = cue(zh ? RULE_ZH : RULE_EN, text)))
    return keep(/先|前|后|再|before|then|first/i.test(c) ? 'workflow' : 'rule', c, 'instruction');
  const cog = findVerb(text, 'cognitive');
  if (cog) return keep('cognitive-verb', cog.verb, timed ? 'episodic' : 'instruction', cog);
  const op = findVerb(text, 'operational');
  if (op) return keep('operational-verb', op.verb, timed || op.past ? 'episodic' : 'instruction', op);
  const done = cue(zh ? DONE_ZH : DONE_EN, text);
  if (timed && (done || hasActionVerb(text, zh))) return keep('event', timed, 'episodic');
  if (done && meaningfulLength(text) >= 4) return keep('event', done, 'episodic');
  const nums = findNumbers(text);
  const tech = findTechTerms(text);
  if (nums.length && tech.length && role === 'user')
    return keep('tech-number', `${tech[0]} ${nums[0]}`, 'instruction');
  return drop('no-signal');
}

const STATIVE_ZH = new Set(['是', '有', '在', '觉得', '感觉', '想', '像', '叫', '要']);

/** An action happened: a non-stative verb (jieba `v`) or an English past-tense verb. */
function hasActionVerb(text: string, zh: boolean): boolean {
  if (zh) return tagChinese(text).some((w) => /^v[dn]?$/.test(w.tag) && !STATIVE_ZH.has(w.word));
  return tagEnglish(text).some((w) => w.tag === 'VBD' || w.tag === 'VBN');
}

/** Titles and links are references, not statements: blank them before matching cue words. */
function maskRefs(text: string): string {
  return text.replace(/《[^》]{0,80}》|[a-z][a-z0-9+.-]*:\/\/\S+/gi, '《》');
}

function classifyUser(original: string, zh: boolean): Decision {
  const text = maskRefs(original);
  let c: string | undefined;
  if (isSmallTalk(text)) return drop('small-talk', smallTalkKey(text) || text);
  if (meaningfulLength(text) < 4) return drop('too-short', `${meaningfulLength(text)} chars`);
  if (isQuestion(text)) return drop('question', text.trim().slice(-1));
  if ((c = cue(zh ? CORRECTION_ZH : CORRECTION_EN, text))) return keep('correction', c, 'instruction');
  if ((c = cue(HEDGE_ZH, text) ?? cue(HEDGE_EN, text))) return drop('hedge', c);
  if ((c = cue(VENT, text)) && !hasContent(text)) return drop('venting', c);
  const k = keepRules(text, zh);
  if (k) return k;
  if ((c = cue(zh ? ONE_OFF_ZH : ONE_OFF_EN, text)) && !DURABLE.test(text)) return drop('one-off-request', c);
  if (zh && /^(?:请|麻烦)/.test(text) && !DURABLE.test(text) && !extractSourceRefs(original).refs.length)
    return drop('one-off-request', '请');
  const d = laterRules(text, zh, 'user');
  if (!d.keep) {
    const refs = extractSourceRefs(original);
    if (refs.cue) return keep('source-ref', refs.cue, 'instruction');
  }
  return d;
}

function classifyAssistant(original: string, zh: boolean, role: Role): Decision {
  const text = maskRefs(original);
  let c: string | undefined;
  if (isSmallTalk(text)) return drop('small-talk', smallTalkKey(text) || text);
  if (meaningfulLength(text) < 4) return drop('too-short', `${meaningfulLength(text)} chars`);
  if (isQuestion(text)) return drop('question', text.trim().slice(-1));
  if ((c = cue(HEDGE_ZH, text) ?? cue(HEDGE_EN, text))) return drop('hedge', c);
  const confirmed = cue(ASSISTANT_KEEP, text);
  if (!confirmed) return drop(role === 'tool' ? 'tool-output-unconfirmed' : 'assistant-unconfirmed');
  const d = keepRules(text, zh);
  if (d && d.rule === 'decision') return d;
  const timed = cue(zh ? TIME_ZH : TIME_EN, text);
  const cog = findVerb(text, 'cognitive');
  return keep('confirmed-fact', confirmed, timed ? 'episodic' : 'instruction', cog);
}

/** Enough substance that venting words do not disqualify it (numbers, identifiers, findings). */
function hasContent(text: string): boolean {
  if (findNumbers(text).length) return true;
  if (/[A-Za-z]+\d|\d+[A-Za-z]|[A-Za-z]+-[A-Za-z0-9]+|0x[0-9a-f]+/i.test(text)) return true;
  if (cue(ASSISTANT_KEEP, text)) return true;
  return isChinese(text) ? meaningfulLength(text.replace(VENT, '')) >= 16 : text.split(/\s+/).length >= 12;
}

/** Strip an explicit request phrase; returns the phrase and the rest. */
export function stripExplicitRequest(text: string): { phrase?: string; rest: string } {
  for (const re of [EXPLICIT_HEAD_ZH, EXPLICIT_HEAD_EN]) {
    const m = re.exec(text);
    if (m && m[0].trim())
      return { phrase: m[0].replace(/[\s:：,，、;-]+$/, '').trim(), rest: text.slice(m[0].length).trim() };
  }
  for (const re of [EXPLICIT_TAIL_ZH, EXPLICIT_TAIL_EN]) {
    const m = re.exec(text);
    if (m && m.index > 0)
      return {
        phrase: m[0].replace(/^[\s,，:：;-]+|[。.!！]+$/g, '').trim(),
        rest: text
          .slice(0, m.index)
          .replace(/[\s,，:：;-]+$/, '')
          .trim(),
      };
  }
  return { rest: text };
}

/** True for fenced code and lines that are clearly code or raw output, not sentences. */
function looksLikeCode(line: string): boolean {
  return /^\s*(?:[{}[\]();]|\/\/|#!|<\/?[a-z]+[ >])/i.test(line) && !CJK.test(line);
}

// ---------------------------------------------------------------------------------------------

export interface RulesResult {
  candidates: Candidate[];
  dropped: Dropped[];
}

interface Unit {
  text: string;
  message: NormalizedMessage;
}

function buildCandidate(
  text: string,
  msg: NormalizedMessage,
  sourceType: SourceType,
  k: Keep,
  explicit: { phrase?: string },
): Candidate {
  const nums = findNumbers(text);
  const tech = findTechTerms(text);
  const refs = extractSourceRefs(text);
  const actionable =
    (nums.length > 0 && tech.length > 0) || (explicit.phrase !== undefined && REMINDER.test(explicit.phrase));
  const vent = VENT.test(text);
  const unverified =
    NECESSITY.test(text) && COMPAT_SUBJECT.test(text) && !EVIDENCE.test(text) && refs.refs.length === 0;
  const verb = k.verb ?? findVerb(text, 'cognitive') ?? findVerb(text, 'operational');
  const extras: string[] = [];
  if (k.rule !== 'tech-number' && nums.length && tech.length)
    extras.push(`+tech-number(${tech[0]} ${nums[0]})`);
  if (verb && k.rule !== `${verb.kind}-verb`) extras.push(`+${verb.kind}-verb(${verb.verb})`);
  if (refs.cue && k.rule !== 'source-ref') extras.push(`+source-ref(${refs.cue})`);
  const primary =
    explicit.phrase !== undefined ? `rule:explicit-request(${explicit.phrase})` : `rule:${k.rule}(${k.cue})`;
  if (explicit.phrase !== undefined && k.rule !== 'explicit-request') extras.unshift(`+${k.rule}(${k.cue})`);
  const features: CandidateFeatures = {
    role: msg.role,
    rule: explicit.phrase !== undefined ? 'explicit-request' : k.rule,
    explicit_request: explicit.phrase !== undefined,
    has_number: nums.length > 0,
    tech_terms: tech.length,
    vent,
    unverified_claim: unverified,
    length: [...text].length,
    weighted_length: weightedLength(text),
  };
  if (explicit.phrase !== undefined) features.request_phrase = explicit.phrase;
  if (verb) {
    features.verb_kind = verb.kind;
    features.verb = verb.verb;
  }
  return {
    text,
    category: k.category,
    source_type: sourceType,
    is_actionable: actionable,
    source_ref: [`msg:${msg.id}`, ...refs.refs],
    message_ids: [msg.id],
    reason: [primary, ...extras].join(' '),
    score: 0,
    confidence: 0,
    pending: explicit.phrase !== undefined,
    ...(explicit.phrase !== undefined ? { pending_reason: `explicit request (${explicit.phrase})` } : {}),
    features,
  };
}

/**
 * Apply the rule filter to normalized (and redacted) messages.
 *
 * Every sentence ends up either in `candidates` (with `reason` naming the rule that kept it, e.g.
 * `rule:operational-verb(设为) +tech-number(阈值 1500ms)`) or in `dropped` (e.g. `drop:hedge(可能)`).
 * User messages are the main source; assistant and tool messages only yield decisions and
 * confirmed facts; system messages yield nothing. Explicit requests ("请记录", "remember that")
 * have the phrase stripped and are marked `pending` for the review queue; a bare request
 * ("把这个加到知识库") applies to the sentence before it.
 */
export function applyRules(messages: NormalizedMessage[], sourceType: SourceType): RulesResult {
  const candidates: Candidate[] = [];
  const dropped: Dropped[] = [];
  const seen = new Map<string, Candidate>();
  /** The last sentence handled, for bare requests that point back. */
  let last: { kind: 'candidate'; c: Candidate } | { kind: 'dropped'; d: Dropped; unit: Unit } | undefined;

  const push = (text: string, msg: NormalizedMessage, k: Keep, explicit: { phrase?: string }): void => {
    const key = normalizeText(text);
    const prior = seen.get(key);
    if (prior) {
      if (!prior.message_ids.includes(msg.id)) {
        prior.message_ids.push(msg.id);
        prior.source_ref.push(`msg:${msg.id}`);
      }
      dropped.push({ text, reason: 'drop:duplicate-in-session', message_id: msg.id });
      return;
    }
    const c = buildCandidate(text, msg, sourceType, k, explicit);
    candidates.push(c);
    seen.set(key, c);
    last = { kind: 'candidate', c };
  };

  for (const msg of messages) {
    let inFence = false;
    const lines: string[] = [];
    for (const line of msg.content.split('\n')) {
      if (/^\s*(?:```|~~~)/.test(line)) {
        if (inFence) dropped.push({ text: '```', reason: 'drop:code-block', message_id: msg.id });
        inFence = !inFence;
        continue;
      }
      if (inFence || looksLikeCode(line)) continue;
      lines.push(line);
    }
    for (const sentence of splitSentences(lines.join('\n'))) {
      if (msg.role === 'system') {
        dropped.push({ text: sentence, reason: 'drop:system-message', message_id: msg.id });
        continue;
      }
      const text = stripLeadingSmallTalk(sentence);
      const zh = isChinese(text);
      if (msg.role === 'user') {
        const ex = stripExplicitRequest(text);
        if (ex.phrase !== undefined) {
          if (ONLY_POINTER.test(ex.rest)) {
            // Bare request: it applies to the sentence before.
            const prev = last as typeof last;
            if (prev?.kind === 'candidate') {
              const c = prev.c;
              c.pending = true;
              c.pending_reason = `explicit request (${ex.phrase})`;
              c.reason = `rule:explicit-request(${ex.phrase}) ${c.reason.replace(/^rule:/, '+')}`;
              if (c.features) {
                c.features.explicit_request = true;
                c.features.request_phrase = ex.phrase;
                c.features.rule = 'explicit-request';
              }
              if (REMINDER.test(ex.phrase)) c.is_actionable = true;
              if (!c.message_ids.includes(msg.id)) c.message_ids.push(msg.id);
              last = undefined;
            } else if (prev?.kind === 'dropped' && !/^drop:(?:system|duplicate|code)/.test(prev.d.reason)) {
              dropped.splice(dropped.indexOf(prev.d), 1);
              const k =
                keepRules(prev.d.text, isChinese(prev.d.text)) ??
                keep('explicit-request', ex.phrase, 'instruction');
              push(prev.d.text, prev.unit.message, k, { phrase: ex.phrase });
              last = undefined;
            } else {
              dropped.push({
                text: sentence,
                reason: `drop:empty-request(${ex.phrase})`,
                message_id: msg.id,
              });
            }
            continue;
          }
          const rest = ex.rest;
          const restZh = isChinese(rest);
          const k =
            keepRules(rest, restZh) ??
            (() => {
              const d = laterRules(rest, restZh, 'user');
              return d.keep ? d : keep('explicit-request', ex.phrase!, 'instruction');
            })();
          push(rest, msg, k, { phrase: ex.phrase });
          continue;
        }
      }
      const d = msg.role === 'user' ? classifyUser(text, zh) : classifyAssistant(text, zh, msg.role);
      if (d.keep) {
        push(text, msg, d, {});
      } else {
        const entry: Dropped = { text: sentence, reason: d.reason, message_id: msg.id };
        dropped.push(entry);
        last = { kind: 'dropped', d: entry, unit: { text, message: msg } };
      }
    }
  }
  return { candidates, dropped };
}

/** Exposed for tests and `--explain`: the small-talk list used by the rules. */
export const SMALL_TALK_WORDS: ReadonlySet<string> = SMALL_TALK;
