/**
 * Hand-written wording for the later months of each conversation (eval/grow.ts assembles it with the
 * worlds in worlds.ts and a fixed seed).
 *
 * - FACTS: how people state, change, ask about and repeat one attribute of a thing or a person, in English
 *   and Chinese. Slots: {T} the thing or person, {v} the value, {old} the value before, {x} a detail (a
 *   pet's species, what was bought, what happened).
 * - VALUES: what the attributes take. The grower draws each value once per conversation and never one that
 *   already appears in it, so a generated fact never answers another question by accident.
 * - SCENES: ordinary exchanges (work chat, small talk, requests to an assistant) in the speakers' own
 *   register. `[a|b|c]` picks one wording; {T} is one of the world's things, {P} one of its people.
 */
export type AttrKind = 'port' | 'timeout' | 'version' | 'owner' | 'schedule' | 'retention' | 'limit' | 'replicas' | 'pet' | 'city' | 'food' | 'drink' | 'hobby' | 'price' | 'event';
export type Lang = 'en' | 'zh';

export interface Phrasing {
  /** First mention. */
  say: string[];
  /** A later value replacing {old}. */
  change: string[];
  /** The other speaker asking (before a `say` or `change` answers it). */
  prompt: string[];
  /** The question of the eval (the current value). */
  ask: string[];
  /** A peer repeating the value (a restatement, not the evidence). */
  echo: string[];
  /** An assistant restating the value. */
  restate: string[];
  /** Whether the value changes over time (else it is said once). */
  changes: boolean;
  category: 'single-hop' | 'preference' | 'temporal';
}

export const FACTS: Record<Lang, Record<AttrKind, Phrasing>> = {
  en: {
    port: {
      say: ['the {T} listens on port {v}', 'fyi the {T} is on {v}', '[for the record|note to self], the {T} port is {v}', 'the {T} runs on {v} in every environment now'],
      change: ['the {T} moved from {old} to port {v}', '[heads up|careful], the {T} is on {v} now, {old} is gone', 'we had to move the {T} off {old}, it listens on {v} now'],
      prompt: ['which port is the {T} on again?', 'what port does the {T} use these days?'],
      ask: ['Which port is the {T} on now?', 'What port does the {T} listen on?'],
      echo: ['{v} for the {T}, got it', 'ok so {v}, I\'ll fix my config'],
      restate: ['Noted: the {T} is on port {v}.', 'Got it, port {v} for the {T}.'],
      changes: true,
      category: 'single-hop',
    },
    timeout: {
      say: ['the {T} timeout is {v}', 'we run the {T} with a {v} timeout', 'the {T} gives up after {v}'],
      change: ['I changed the {T} timeout from {old} to {v}', 'the {T} timeout is {v} now, {old} was too [tight|loose]', 'we settled on {v} for the {T} timeout, not {old} anymore'],
      prompt: ['what timeout does the {T} have right now?', 'remind me, how long before the {T} times out?'],
      ask: ['What is the timeout of the {T} now?', 'How long is the {T} timeout these days?'],
      echo: ['{v} for the {T}, makes sense', 'ok, {v}. I\'ll mention it in the review'],
      restate: ['Understood, the {T} now times out after {v}.', 'Okay: {v} for the {T} timeout.'],
      changes: true,
      category: 'single-hop',
    },
    version: {
      say: ['the {T} is on version {v}', 'we pinned the {T} to {v}', 'the {T} runs {v} in prod'],
      change: ['upgraded the {T} from {old} to {v}', 'the {T} is on {v} now, we finally left {old}', 'we rolled the {T} forward to {v}'],
      prompt: ['which version of the {T} are we on?', 'did the {T} get upgraded?'],
      ask: ['Which version is the {T} on now?', 'What version does the {T} run?'],
      echo: ['{v}, nice, about time', 'so the {T} is {v}, ok'],
      restate: ['Noted, the {T} is on {v}.', 'Thanks, I\'ll assume {v} for the {T} from now on.'],
      changes: true,
      category: 'single-hop',
    },
    owner: {
      say: ['{v} owns the {T}', 'the {T} belongs to {v}\'s team', '{v} is the owner of the {T} now'],
      change: ['{old} handed the {T} over to {v}', 'the {T} moved from {old} to {v}', '{v} took over the {T}, {old} moved on'],
      prompt: ['who owns the {T} these days?', 'who do I ask about the {T}?'],
      ask: ['Who owns the {T} now?', 'Who is responsible for the {T}?'],
      echo: ['{v}, ok, I\'ll ping them', 'so {v} it is for the {T}'],
      restate: ['Got it, {v} owns the {T}.', 'Noted: questions about the {T} go to {v}.'],
      changes: true,
      category: 'single-hop',
    },
    schedule: {
      say: ['the {T} runs {v}', 'we scheduled the {T} to run {v}', 'the {T} kicks off {v}'],
      change: ['the {T} runs {v} now instead of {old}', 'moved the {T} from {old} to {v}', 'changed the {T} schedule to {v}'],
      prompt: ['how often does the {T} run these days?', 'when does the {T} run now?'],
      ask: ['How often does the {T} run now?', 'What is the schedule of the {T}?'],
      echo: ['{v}, ok', 'noted, {v} for the {T}'],
      restate: ['Okay, the {T} runs {v}.', 'Noted: {v} for the {T}.'],
      changes: true,
      category: 'single-hop',
    },
    retention: {
      say: ['we keep {T} data for {v}', 'the {T} retention is {v}', 'the {T} keeps {v} of history'],
      change: ['cut the {T} retention from {old} to {v}', 'the {T} keeps {v} now, {old} cost too much', 'raised the {T} retention to {v}, {old} wasn\'t enough for audits'],
      prompt: ['how long do we keep {T} data?', 'what\'s the {T} retention again?'],
      ask: ['How long is the {T} retention now?', 'How long does the {T} keep its data?'],
      echo: ['{v} of {T} data, ok', 'so {v}, fine by me'],
      restate: ['Understood: {v} of retention for the {T}.', 'Noted, the {T} keeps {v}.'],
      changes: true,
      category: 'single-hop',
    },
    limit: {
      say: ['the {T} is rate limited to {v}', 'we cap the {T} at {v}', 'the {T} limit is {v}'],
      change: ['raised the {T} limit from {old} to {v}', 'the {T} is capped at {v} now, not {old}', 'we lowered the {T} cap to {v}'],
      prompt: ['what\'s the rate limit on the {T}?', 'is the {T} still capped?'],
      ask: ['What is the rate limit of the {T} now?', 'What is the {T} capped at?'],
      echo: ['{v} for the {T}, ok', 'right, {v}'],
      restate: ['Got it: the {T} is limited to {v}.', 'Noted, {v} for the {T}.'],
      changes: true,
      category: 'single-hop',
    },
    replicas: {
      say: ['the {T} runs {v}', 'we have the {T} at {v}', 'the {T} is scaled to {v}'],
      change: ['scaled the {T} from {old} to {v}', 'the {T} is at {v} now, {old} was not enough', 'we went down to {v} for the {T}, {old} was overkill'],
      prompt: ['how many replicas does the {T} have?', 'did we scale the {T}?'],
      ask: ['How many replicas does the {T} run now?', 'How far is the {T} scaled out?'],
      echo: ['{v}, ok', 'so the {T} is at {v}'],
      restate: ['Noted: the {T} runs {v}.', 'Okay, {v} for the {T}.'],
      changes: true,
      category: 'single-hop',
    },
    pet: {
      say: ['{T} adopted a {x}, it\'s called {v}', '{T} has a {x} named {v}', '{T} finally got a {x}, {v}, [super cute|very loud|tiny]'],
      change: [],
      prompt: ['did {T} ever get that {x}?'],
      ask: ['What is the name of {T}\'s {x}?', 'What is {T}\'s {x} called?'],
      echo: ['{v}! what a name', '{v} is such a good name for a {x}'],
      restate: ['{v} is a lovely name for a {x}.', 'That\'s sweet, {v} the {x}.'],
      changes: false,
      category: 'single-hop',
    },
    city: {
      say: ['{T} lives in {v}', '{T} is based in {v}', '{T} moved to {v} [a while ago|last year|for work]'],
      change: ['{T} moved from {old} to {v}', '{T} left {old}, lives in {v} now', 'so {T} is in {v} now, {old} didn\'t work out'],
      prompt: ['where does {T} live these days?', 'is {T} still in the same city?'],
      ask: ['Which city does {T} live in now?', 'Where does {T} live these days?'],
      echo: ['{v}, wow, big change', 'oh nice, {v}'],
      restate: ['{v} sounds like a good move for {T}.', 'So {T} is in {v} now.'],
      changes: true,
      category: 'single-hop',
    },
    food: {
      say: ['{T}\'s favourite dish is {v}', '{T} would eat {v} every day if allowed', '{T} always orders {v}'],
      change: ['{T} is over {old}, it\'s all {v} now', '{T}\'s new favourite is {v}, not {old}', '{T} switched from {old} to {v}'],
      prompt: ['what does {T} like to eat these days?', 'what should we order for {T}?'],
      ask: ['What is {T}\'s favourite food now?', 'What does {T} like to eat these days?'],
      echo: ['{v}, noted for next time', 'ha, {v}, of course'],
      restate: ['{v} it is, good to know for {T}.', 'Noted that {T} loves {v}.'],
      changes: true,
      category: 'preference',
    },
    drink: {
      say: ['{T} only drinks {v}', '{T} is a {v} person', '{T} always has {v}'],
      change: ['{T} quit {old}, only {v} now', '{T} drinks {v} now instead of {old}', '{T} moved on from {old} to {v}'],
      prompt: ['what does {T} drink?', 'should I get {T} a coffee?'],
      ask: ['What does {T} drink now?', 'What is {T}\'s drink of choice these days?'],
      echo: ['{v}, got it', 'so {v} for {T}'],
      restate: ['Noted: {v} for {T}.', 'Good to know, {T} drinks {v}.'],
      changes: true,
      category: 'preference',
    },
    hobby: {
      say: ['{T} took up {v}', '{T} is really into {v} lately', '{T} spends every weekend on {v}'],
      change: ['{T} dropped {old} and is into {v} now', '{T} swapped {old} for {v}'],
      prompt: ['what is {T} up to on weekends?', 'does {T} still do that hobby?'],
      ask: ['Which hobby is {T} into now?', 'What does {T} do for fun these days?'],
      echo: ['{v}? didn\'t see that coming', 'oh, {v}, fun'],
      restate: ['{v} sounds like a great hobby for {T}.', 'That\'s nice, {T} and {v}.'],
      changes: true,
      category: 'preference',
    },
    price: {
      say: ['{T} paid {v} for {x}', '{x} cost {T} {v}', '{T} got {x}, {v} all in'],
      change: [],
      prompt: ['how much did {T} pay for {x} in the end?'],
      ask: ['How much did {T} pay for {x}?', 'What did {x} cost {T}?'],
      echo: ['{v}? that\'s [steep|a bargain|fair]', '{v}, not bad'],
      restate: ['{v} for {x} sounds reasonable.', 'So {v} in total for {x}.'],
      changes: false,
      category: 'single-hop',
    },
    event: {
      say: ['{T} {x} {v}', '[you know what,|guess what,|btw] {T} {x} {v}'],
      change: [],
      prompt: ['any news from {T}?'],
      ask: ['When did {T} {y}?'],
      echo: ['{v}? I had no idea', 'oh wow, {v}'],
      restate: ['Thanks for telling me, {v} is recent.', 'I hope it went well {v}.'],
      changes: false,
      category: 'temporal',
    },
  },
  zh: {
    port: {
      say: ['{T}监听的端口是 {v}', '{T}现在跑在 {v} 端口上', '记一下，{T}的端口是 {v}', '{T}在各个环境都统一用 {v} 端口'],
      change: ['{T}的端口从 {old} 改成 {v} 了', '注意，{T}现在走 {v}，{old} 已经下线了', '{T}迁完以后端口换成了 {v}，别再连 {old}'],
      prompt: ['{T}现在是哪个端口来着？', '{T}的端口是不是又改了？'],
      ask: ['{T}现在用哪个端口？', '{T}的端口是多少？'],
      echo: ['{v} 是吧，我改一下配置', '好，{T}走 {v}'],
      restate: ['记下了：{T}的端口是 {v}。', '好的，{T}用 {v} 端口。'],
      changes: true,
      category: 'single-hop',
    },
    timeout: {
      say: ['{T}的超时是 {v}', '{T}超时设的是 {v}', '{T}等 {v} 就放弃了'],
      change: ['{T}的超时从 {old} 调成 {v} 了', '{T}超时现在是 {v}，{old} 太[短|长]了', '最后{T}超时定成 {v}，不再用 {old}'],
      prompt: ['{T}现在超时是多少？', '{T}多久会超时来着？'],
      ask: ['{T}现在的超时是多少？', '{T}的超时时间设成了多少？'],
      echo: ['{v} 啊，行', '好，{v}，评审的时候我提一下'],
      restate: ['明白，{T}的超时现在是 {v}。', '好的：{T}超时 {v}。'],
      changes: true,
      category: 'single-hop',
    },
    version: {
      say: ['{T}用的是 {v} 版本', '{T}的版本锁在 {v}', '线上{T}跑的是 {v}'],
      change: ['{T}从 {old} 升到了 {v}', '{T}现在是 {v}，终于不用 {old} 了', '{T}已经升级到 {v}'],
      prompt: ['{T}现在是什么版本？', '{T}升级了吗？'],
      ask: ['{T}现在是什么版本？', '{T}用的是哪个版本？'],
      echo: ['{v}，早该升了', '好，{T}是 {v}'],
      restate: ['记下了，{T}是 {v}。', '好的，之后按 {v} 来考虑{T}。'],
      changes: true,
      category: 'single-hop',
    },
    owner: {
      say: ['{T}归{v}管', '{T}现在是{v}负责', '{T}的负责人是{v}'],
      change: ['{T}从{old}那边交给{v}了', '{T}换成{v}负责了，{old}去做别的了', '以后{T}找{v}，不找{old}了'],
      prompt: ['{T}现在谁在管？', '{T}的问题找谁？'],
      ask: ['{T}现在由谁负责？', '{T}归谁管？'],
      echo: ['{v}啊，好，我去找{v}', '那{T}就找{v}'],
      restate: ['好的，{T}由{v}负责。', '记下了：{T}的问题找{v}。'],
      changes: true,
      category: 'single-hop',
    },
    schedule: {
      say: ['{T}{v}跑一次', '{T}排在{v}执行', '{T}是{v}触发'],
      change: ['{T}从{old}改成{v}了', '{T}现在{v}跑，原来是{old}', '{T}的调度改成了{v}'],
      prompt: ['{T}现在多久跑一次？', '{T}什么时候跑？'],
      ask: ['{T}现在多久跑一次？', '{T}的调度是怎么排的？'],
      echo: ['{v}，好', '行，{T}{v}'],
      restate: ['好的，{T}{v}执行。', '记下了：{T}{v}。'],
      changes: true,
      category: 'single-hop',
    },
    retention: {
      say: ['{T}的数据保留 {v}', '{T}留 {v}', '{T}的保留期是 {v}'],
      change: ['{T}保留期从 {old} 缩到 {v} 了', '{T}现在保留 {v}，{old} 成本太高', '{T}改成保留 {v}，{old} 不够审计用'],
      prompt: ['{T}的数据留多久？', '{T}保留期是多少来着？'],
      ask: ['{T}现在保留多久？', '{T}的保留期是多少？'],
      echo: ['{v}，行', '那就 {v}'],
      restate: ['明白：{T}保留 {v}。', '记下了，{T}留 {v}。'],
      changes: true,
      category: 'single-hop',
    },
    limit: {
      say: ['{T}限流是{v}', '{T}上限设的是{v}', '{T}的限额是{v}'],
      change: ['{T}限流从{old}提到了{v}', '{T}现在上限是{v}，不是{old}了', '{T}的限流降到{v}'],
      prompt: ['{T}现在限流多少？', '{T}还有上限吗？'],
      ask: ['{T}现在的限流是多少？', '{T}的上限是多少？'],
      echo: ['{v}，好', '嗯，{v}'],
      restate: ['好的：{T}限流{v}。', '记下了，{T}上限{v}。'],
      changes: true,
      category: 'single-hop',
    },
    replicas: {
      say: ['{T}跑了{v}', '{T}现在是{v}', '{T}扩到了{v}'],
      change: ['{T}从{old}扩到了{v}', '{T}现在是{v}，{old}扛不住', '{T}缩到{v}了，{old}太浪费'],
      prompt: ['{T}现在几个副本？', '{T}扩容了吗？'],
      ask: ['{T}现在有几个副本？', '{T}扩到了多少副本？'],
      echo: ['{v}，好', '那{T}就是{v}'],
      restate: ['记下了：{T}现在{v}。', '好的，{T}{v}。'],
      changes: true,
      category: 'single-hop',
    },
    pet: {
      say: ['{T}领养了一只{x}，叫{v}', '{T}家有只{x}叫{v}', '{T}终于养了{x}，名字叫{v}，[超可爱|特别闹腾|小小一只]'],
      change: [],
      prompt: ['{T}后来养{x}了吗？'],
      ask: ['{T}的{x}叫什么名字？', '{T}养的{x}叫什么？'],
      echo: ['{v}！这名字好可爱', '叫{v}啊，哈哈'],
      restate: ['{v}，很可爱的名字。', '真好，{x}叫{v}。'],
      changes: false,
      category: 'single-hop',
    },
    city: {
      say: ['{T}住在{v}', '{T}现在在{v}工作生活', '{T}[前两年|去年|为了工作]搬到了{v}'],
      change: ['{T}从{old}搬到{v}了', '{T}离开{old}了，现在在{v}', '{T}又搬了，从{old}去了{v}'],
      prompt: ['{T}现在住哪儿？', '{T}还在原来的城市吗？'],
      ask: ['{T}现在住在哪个城市？', '{T}现在在哪儿生活？'],
      echo: ['{v}啊，变化挺大', '去{v}了？挺好'],
      restate: ['{v}听起来不错。', '那{T}现在在{v}了。'],
      changes: true,
      category: 'single-hop',
    },
    food: {
      say: ['{T}最爱吃{v}', '{T}每次都点{v}', '{T}说{v}怎么吃都不腻'],
      change: ['{T}吃腻{old}了，现在只吃{v}', '{T}的新欢是{v}，不是{old}了', '{T}从{old}换成{v}了'],
      prompt: ['{T}最近爱吃啥？', '给{T}点什么好？'],
      ask: ['{T}现在最喜欢吃什么？', '{T}最近爱吃什么？'],
      echo: ['{v}，下次记住了', '哈哈{v}，果然'],
      restate: ['好的，{T}喜欢{v}。', '记下了：{T}爱吃{v}。'],
      changes: true,
      category: 'preference',
    },
    drink: {
      say: ['{T}只喝{v}', '{T}每天一杯{v}', '{T}离不开{v}'],
      change: ['{T}戒了{old}，现在只喝{v}', '{T}现在喝{v}，不喝{old}了', '{T}从{old}改喝{v}了'],
      prompt: ['{T}喝什么？', '要不要给{T}带杯咖啡？'],
      ask: ['{T}现在喝什么？', '{T}平时爱喝什么？'],
      echo: ['{v}，记住了', '那给{T}带{v}'],
      restate: ['好的：{T}喝{v}。', '明白，{T}爱喝{v}。'],
      changes: true,
      category: 'preference',
    },
    hobby: {
      say: ['{T}开始学{v}了', '{T}最近迷上了{v}', '{T}每个周末都在忙{v}'],
      change: ['{T}不玩{old}了，改成{v}', '{T}把{old}换成了{v}'],
      prompt: ['{T}周末都干嘛？', '{T}还在搞那个爱好吗？'],
      ask: ['{T}现在的爱好是什么？', '{T}最近迷上了什么？'],
      echo: ['{v}？没想到', '{v}啊，挺好玩的'],
      restate: ['{v}是个不错的爱好。', '挺好的，{T}喜欢{v}。'],
      changes: true,
      category: 'preference',
    },
    price: {
      say: ['{T}买{x}花了{v}', '{x}{T}花了{v}', '{T}入手了{x}，一共{v}'],
      change: [],
      prompt: ['{T}那个{x}最后多少钱？'],
      ask: ['{T}买{x}花了多少钱？', '{T}的{x}多少钱？'],
      echo: ['{v}？[有点贵|挺划算|还行]', '{v}，还可以'],
      restate: ['{v}买{x}，挺合理的。', '那{x}一共{v}。'],
      changes: false,
      category: 'single-hop',
    },
    event: {
      say: ['{T}{v}{x}', '[跟你说，|对了，|你知道吗，]{T}{v}{x}'],
      change: [],
      prompt: ['{T}最近有什么消息吗？'],
      ask: ['{T}什么时候{y}的？'],
      echo: ['{v}？我都不知道', '哇，{v}的事啊'],
      restate: ['谢谢告诉我，{v}还挺近的。', '希望{v}一切顺利。'],
      changes: false,
      category: 'temporal',
    },
  },
};

/** Values per attribute. Numbers are filled in by the grower; `#` marks where. */
export const VALUES: Record<Lang, Partial<Record<AttrKind, string[]>>> = {
  en: {
    timeout: ['# seconds', '# ms'],
    retention: ['# days', '# weeks', '# months'],
    schedule: ['every # minutes', 'every # hours', 'at 0#:15 UTC', 'at 0#:45 UTC'],
    limit: ['# requests per second', '# requests per minute'],
    replicas: ['# replicas', '# pods'],
    owner: ['Farid', 'Yuki', 'Beatriz', 'Tomasz', 'Aisha', 'Lars', 'Mei', 'Kofi', 'Rosa', 'Dmitri', 'Elif', 'Gustavo', 'Hanne', 'Ravindra', 'Olu', 'Sigrid', 'Mateo', 'Svetlana', 'Ayodele', 'Kasia'],
    pet: ['Waffles', 'Nugget', 'Pickles', 'Juniper', 'Mochi', 'Bandit', 'Clover', 'Rusty', 'Pebble', 'Ziggy', 'Marzipan', 'Tofu', 'Olive', 'Gizmo', 'Hazel', 'Noodle', 'Pistachio', 'Domino'],
    city: ['Rotterdam', 'Tallinn', 'Valencia', 'Montreal', 'Denver', 'Leeds', 'Kraków', 'Porto Alegre', 'Ghent', 'Bergen', 'Tucson', 'Glasgow', 'Bologna', 'Halifax', 'Adelaide', 'Ljubljana', 'Wellington', 'Nantes', 'Sapporo', 'Edinburgh'],
    food: ['mushroom risotto', 'pad see ew', 'shakshuka', 'pierogi', 'bibimbap', 'fish tacos', 'chana masala', 'carbonara', 'pho', 'falafel wraps', 'katsu curry', 'lentil dal', 'jollof rice', 'pupusas', 'gnocchi', 'bánh mì', 'paella', 'ramen with extra egg'],
    drink: ['green tea', 'cold brew', 'sparkling water', 'chai lattes', 'matcha', 'espresso tonic', 'rooibos', 'kombucha', 'hot chocolate', 'decaf americanos', 'yerba mate', 'ginger tea'],
    hobby: ['bouldering', 'sourdough baking', 'birdwatching', 'salsa dancing', 'woodworking', 'open-water swimming', 'chess', 'film photography', 'pickleball', 'knitting', 'trail running', 'beekeeping', 'padel', 'watercolour painting', 'rowing'],
    price: ['# dollars', '# euros', '# pounds'],
  },
  zh: {
    timeout: ['# 秒', '# 毫秒'],
    retention: ['# 天', '# 周', '# 个月'],
    schedule: ['每 # 分钟', '每 # 小时', '每天凌晨 # 点', '每天早上 # 点半'],
    limit: ['每秒 # 次', '每分钟 # 次'],
    replicas: ['# 个副本', '# 个实例'],
    owner: ['郑凯', '何静', '罗斌', '高雪', '谢晨', '韩梅', '冯涛', '曹宇', '彭丽', '邓超群', '许嘉', '傅明', '沈佳', '蒋欣', '魏东', '袁野', '潘婷', '杜峰'],
    pet: ['豆包', '汤圆', '馒头', '可乐', '芝麻', '布丁', '花卷', '团子', '奶茶', '橘子', '麻薯', '小米', '土豆', '饺子', '旺财', '雪球'],
    city: ['成都', '厦门', '苏州', '西安', '青岛', '长沙', '昆明', '大连', '南京', '武汉', '贵阳', '合肥', '珠海', '宁波', '济南', '福州', '兰州', '沈阳'],
    food: ['酸菜鱼', '螺蛳粉', '煲仔饭', '麻辣烫', '小龙虾', '烤冷面', '羊肉泡馍', '肠粉', '过桥米线', '椰子鸡', '酸汤肥牛', '生煎包', '热干面', '冒菜', '卤肉饭', '臭豆腐'],
    drink: ['美式', '乌龙茶', '冰可乐', '豆浆', '燕麦拿铁', '普洱', '柠檬水', '菊花茶', '气泡水', '生椰拿铁', '红枣茶', '绿茶'],
    hobby: ['攀岩', '烘焙', '飞盘', '钓鱼', '陶艺', '骑行', '游泳', '围棋', '摄影', '尤克里里', '羽毛球', '书法', '露营', '滑板', '插花'],
    price: ['# 块', '# 元'],
  },
};

/** Details: a pet's species, what was bought, what happened (past, as in a question, and the word the answer hinges on). */
export const SPECIES: Record<Lang, string[]> = {
  en: ['cat', 'puppy', 'rabbit', 'parrot', 'tortoise', 'hamster', 'kitten', 'gecko'],
  zh: ['猫', '小狗', '兔子', '鹦鹉', '乌龟', '仓鼠', '柯基', '布偶猫'],
};
export const ITEMS: Record<Lang, string[]> = {
  en: ['a used road bike', 'a new washing machine', 'a pair of hiking boots', 'a secondhand piano', 'an air fryer', 'a drone', 'a tent', 'a winter coat', 'an electric scooter', 'a sewing machine', 'a mechanical watch', 'a camera lens'],
  zh: ['一辆二手自行车', '一台洗碗机', '一双登山鞋', '一台投影仪', '一个空气炸锅', '一台无人机', '一顶帐篷', '一件羽绒服', '一辆电动车', '一台咖啡机', '一块手表', '一个镜头'],
};
/** [what happened, the same as after "When did X ...?", the word the answer hinges on]. */
export const EVENTS: Record<Lang, [string, string, string][]> = {
  en: [
    ['had a root canal', 'have a root canal', 'root canal'],
    ['ran a half marathon', 'run a half marathon', 'half marathon'],
    ['got engaged', 'get engaged', 'engaged'],
    ['sold the old car', 'sell the old car', 'old car'],
    ['passed the driving test', 'pass the driving test', 'driving test'],
    ['broke a wrist skiing', 'break a wrist', 'wrist'],
    ['started a new job', 'start the new job', 'new job'],
    ['got the keys to the new flat', 'get the keys to the new flat', 'keys'],
    ['adopted a second cat', 'adopt the second cat', 'second cat'],
    ['went to a jazz concert', 'go to the jazz concert', 'jazz concert'],
    ['had a surprise party', 'have the surprise party', 'surprise party'],
    ['finished the renovation', 'finish the renovation', 'renovation'],
  ],
  zh: [
    ['拔了智齿', '拔智齿', '智齿'],
    ['跑完了半马', '跑半马', '半马'],
    ['订婚了', '订婚', '订婚'],
    ['把旧车卖了', '卖旧车', '旧车'],
    ['拿到驾照了', '拿到驾照', '驾照'],
    ['滑雪摔伤了手腕', '摔伤手腕', '手腕'],
    ['入职新公司了', '入职新公司', '入职'],
    ['拿到新房钥匙了', '拿到新房钥匙', '钥匙'],
    ['又收养了一只猫', '收养第二只猫', '收养'],
    ['去看了演唱会', '去看演唱会', '演唱会'],
    ['办了生日派对', '办生日派对', '生日派对'],
    ['装修完了', '装修完', '装修完'],
  ],
};
/** [cue, days before the session]. The answer is the date the cue points to. */
export const CUES: Record<Lang, [string, number][]> = {
  en: [['the day before yesterday', 2], ['three days ago', 3], ['four days ago', 4], ['five days ago', 5], ['a week ago', 7], ['ten days ago', 10], ['two weeks ago', 14], ['about three weeks ago', 21], ['last month', 30]],
  zh: [['前天', 2], ['三天前', 3], ['四天前', 4], ['五天前', 5], ['一周前', 7], ['十天前', 10], ['两周前', 14], ['三周前', 21], ['上个月', 30]],
};

/**
 * Talk about an attribute that gives no value: a port change that broke someone's setup, a friend's new
 * city, a pet's latest mischief. {T} the thing or person, {x} the pet's species or what was bought, {k} the
 * word an event hinges on. These share the question's words and never its answer.
 */
export const AFTER: Record<Lang, Record<AttrKind, string[]>> = {
  en: {
    port: ['the {T} port change broke my local setup [again|twice|today]', 'did everyone update their configs for the new {T} port?', 'I still had the old {T} port in my notes, oops', 'whoever moves the {T} port next time, please announce it'],
    timeout: ['the {T} timeout discussion is going in circles', 'I\'m not convinced the {T} timeout is right yet', 'we should write down why the {T} timeout is what it is'],
    version: ['the {T} upgrade notes are worth a read', 'any regressions since the {T} upgrade?', 'the {T} changelog is huge this time'],
    owner: ['who do I bother about the {T} these days, still the same person?', 'the {T} ownership page is out of date', 'the handover of the {T} went smoothly from what I heard'],
    schedule: ['the {T} schedule clashes with the backups sometimes', 'the {T} runs at a weird time, no?', 'I keep forgetting when the {T} runs'],
    retention: ['finance asked about the {T} retention again', 'the {T} retention is a compliance thing, don\'t touch it', 'storage costs for the {T} keep creeping up'],
    limit: ['clients keep hitting the {T} limit', 'the {T} rate limit errors are noisy', 'should we raise the {T} limit before the sale?'],
    replicas: ['the {T} scaling is still being debated', 'the {T} pods are idle most of the day', 'autoscaling the {T} would be nice'],
    pet: ['{T}\'s {x} knocked a glass off the table', '{T} sent me ten photos of the {x}', 'the {x} at {T}\'s place hates the vacuum'],
    city: ['{T} says the new city is great but rainy', '{T} is still unpacking boxes after the move', 'I should visit {T} at some point'],
    food: ['{T} made me try their favourite dish, it was good', '{T} keeps sending me recipes', 'dinner with {T} is always a food adventure'],
    drink: ['{T} brought their own drinks to the party, typical', '{T} has strong opinions about drinks', '{T} is very picky about what to drink'],
    hobby: ['{T} keeps talking about the new hobby', '{T} showed me photos from the hobby group', '{T} bought way too much gear for the new hobby'],
    price: ['{T} is very happy with {x}', '{T} already regrets buying {x}', '{T} spent a whole evening comparing prices before buying {x}'],
    event: ['{T} is still talking about the {k}', 'is {T} ok after the {k}?', 'the {k} story from {T} keeps getting better'],
  },
  zh: {
    port: ['{T}改端口把我本地环境[又|今天|两次]搞坏了', '{T}的新端口大家都改配置了吗？', '我笔记里还记着{T}的旧端口，尴尬', '下次谁再改{T}的端口麻烦群里说一声'],
    timeout: ['{T}超时的讨论一直在绕圈子', '我还是觉得{T}的超时不太对', '{T}的超时为什么这么设，得写下来'],
    version: ['{T}的升级说明值得看看', '{T}升级后有回归问题吗？', '{T}这次的更新日志好长'],
    owner: ['{T}现在找谁，还是原来那个人吗？', '{T}的负责人页面过期了', '听说{T}交接得挺顺利'],
    schedule: ['{T}的调度有时候和备份撞上', '{T}跑的时间有点怪吧', '我老是忘了{T}什么时候跑'],
    retention: ['财务又来问{T}的保留期了', '{T}的保留期是合规要求，别动', '{T}的存储成本一直在涨'],
    limit: ['客户老是触发{T}的限流', '{T}限流的报错太吵了', '大促前要不要把{T}的上限调高？'],
    replicas: ['{T}扩缩容还在讨论', '{T}的实例大部分时间都闲着', '{T}要是能自动扩缩容就好了'],
    pet: ['{T}家的{x}把杯子推到地上了', '{T}给我发了十张{x}的照片', '{T}家的{x}特别怕吸尘器'],
    city: ['{T}说新城市挺好就是老下雨', '{T}搬完家箱子还没拆完', '我得找时间去看看{T}'],
    food: ['{T}拉我去吃了ta最爱的菜，确实好吃', '{T}老给我发菜谱', '跟{T}吃饭永远是美食探险'],
    drink: ['{T}去聚会自己带喝的，果然', '{T}对喝的东西特别有主见', '{T}喝东西特别挑'],
    hobby: ['{T}天天聊ta的新爱好', '{T}给我看了兴趣小组的照片', '{T}为了新爱好买了一堆装备'],
    price: ['{T}对{x}特别满意', '{T}已经后悔买{x}了', '{T}买{x}之前比价比了一晚上'],
    event: ['{T}还在说{k}的事', '{T}{k}之后还好吗？', '{T}讲{k}的故事越讲越精彩'],
  },
};

/**
 * The way people say it in passing: the short name ({S}: "fraud-check" for "fraud-check service", "Dele"
 * for "Tom's brother Dele") and little of the question's wording. Used for about half of the statements.
 */
export const CASUAL: Record<Lang, Record<AttrKind, string[]>> = {
  en: {
    port: ['{S} lives on :{v} now', 'moved {S} to {v}, update your env files', '{S} answers on {v} these days'],
    timeout: ['{S} waits {v} before giving up now', 'bumped {S} to {v}, should stop the flapping', '{S} gets {v} now'],
    version: ['bumped {S} to {v}', '{S} is {v} everywhere now', 'rolled out {v} for {S}'],
    owner: ['{v} has {S} now', 'talk to {v} about {S} from now on', '{S} is {v}\'s baby now'],
    schedule: ['{S} goes {v} now', 'moved {S} to {v}', '{S} fires {v}'],
    retention: ['{S} keeps {v} now', 'we hold {v} of {S} stuff', '{S} history goes back {v}'],
    limit: ['{S} tops out at {v} now', '{S} allows {v} max', 'throttled {S} to {v}'],
    replicas: ['{S} is at {v} now', 'bumped {S} to {v}', '{S} has {v} running'],
    pet: ['{S} got a {x}! its name is {v}', '{S}\'s new {x} is called {v}'],
    city: ['{S} is in {v} now', '{S} packed up and went to {v}', 'guess who lives in {v} now: {S}'],
    food: ['{S} is obsessed with {v} lately', 'all {S} eats now is {v}'],
    drink: ['{S} is on {v} these days', '{S} switched to {v}'],
    hobby: ['{S} got into {v}', '{S} does {v} every weekend now'],
    price: ['{S} got {x} for {v}', '{v}, that\'s what {S} paid for {x}'],
    event: ['{S} {x} {v}'],
  },
  zh: {
    port: ['{S}换到 {v} 了', '{S}现在走 {v}，环境变量记得改', '{S}这阵子在 {v} 上'],
    timeout: ['{S}现在等 {v} 才放弃', '{S}放宽到 {v} 了，应该不会再抖', '{S}给了 {v}'],
    version: ['{S}升到 {v} 了', '{S}全都是 {v} 了', '{S}上了 {v}'],
    owner: ['{S}现在是{v}在管', '以后{S}的事找{v}', '{S}现在是{v}的宝贝'],
    schedule: ['{S}改成{v}了', '{S}挪到{v}', '{S}{v}触发一次'],
    retention: ['{S}现在留 {v}', '{S}的东西存 {v}', '{S}的历史能查 {v}'],
    limit: ['{S}最多{v}', '{S}卡在{v}', '{S}被限到{v}'],
    replicas: ['{S}现在{v}', '{S}加到{v}了', '{S}跑着{v}'],
    pet: ['{S}养了只{x}！叫{v}', '{S}新养的{x}叫{v}'],
    city: ['{S}现在在{v}', '{S}收拾收拾去{v}了', '猜猜谁搬到{v}了：{S}'],
    food: ['{S}最近迷上了{v}', '{S}现在只吃{v}'],
    drink: ['{S}最近都喝{v}', '{S}改喝{v}了'],
    hobby: ['{S}迷上了{v}', '{S}现在周末都花在{v}上'],
    price: ['{S}花{v}买了{x}', '{v}，{S}买{x}就花了这么多'],
    event: ['{S}{v}{x}'],
  },
};
