/**
 * Ordinary exchanges for the later months of each conversation (hand-written; eval/grow.ts draws them with
 * a fixed seed). They state nothing a question asks about: work chat about the world's things, small talk,
 * venting, requests to an assistant and its answers. `[a|b|c]` picks one wording, {T} is one of the
 * world's things and {P} one of its people, so the same exchange reads differently each time it comes up.
 * `A` is the first speaker (the user when there is an assistant), `B` the other one (the assistant).
 * `A#:` marks a line that is a fact by issue 17's kinds (docs/recall-quality.md, "Relabelled by a written
 * rule"): a plan or commitment with a time, a person or a named thing, a preference; every other line is junk.
 */
export interface ScenePools {
  eng: string[][];
  life: string[][];
  /** Talk that comes back to a personal topic of the conversation ({L}) without saying anything new. */
  topic: string[][];
}

export const EN_PEER_SCENES: ScenePools = {
  eng: [
    [
      'A: [still fighting|back to fighting|wrestling with] the flaky integration test in the {T} repo',
      'B: the one that only fails on CI?',
      'A: that one. passes locally every single time',
      'B: [classic|of course it does|love that for you]',
    ],
    [
      'B: did you see the {T} dashboard this morning? [lots of red|everything yellow|weird spike]',
      'A: yeah, I think it was the deploy, it settled after a bit',
      'B: ok, not touching it then',
    ],
    [
      "A: can you review my PR for the {T} when you get a sec? it's small, I promise",
      'B: "small". sure, after lunch',
      "A: [thank you|you're the best|owe you one]",
    ],
    [
      'B: the {T} alerts are so noisy [lately|this week|again]',
      'A: I muted two of them, we should rewrite the thresholds properly',
      'B: add it to the retro list',
      'A: done',
    ],
    [
      'A: [ugh|sigh|welp], the {T} build broke again',
      'B: dependency thing?',
      'A: a lockfile conflict, fixing it now',
    ],
    [
      'B: are we doing the {T} cleanup this sprint or next?',
      'A: next, this one is already too full',
      'B: fair',
    ],
    [
      'A: I spent [an hour|half the morning|way too long] reading {T} logs for nothing',
      'B: nothing at all?',
      'A: the bug was in the client the whole time',
      'B: ouch',
    ],
    [
      'B: {P} asked if we have docs for the {T}',
      'A: we have a README from [the dark ages|two reorgs ago|before I joined]',
      'B: so no',
      'A: so no',
    ],
    [
      'A#: I want to add more tracing to the {T}, thoughts?',
      "B: yes please, it's a black box right now",
      "A: ok I'll start with the slow paths",
    ],
    [
      'B: the {T} migration plan doc has [forty|a hundred|way too many] comments',
      "A#: I'll read it [tonight|tomorrow|after standup], promise",
      'B: skim the last section at least',
    ],
    [
      'A: is anyone actually on call for the {T} this week or is it just vibes',
      "B: it's on the rota, I think it's {P}",
      'A: ok good',
    ],
    [
      'B: standup ran long again',
      'A: the {T} discussion should have been its own meeting',
      "B: agreed, I'll suggest it",
    ],
    [
      'A: do we still need the feature flag around the {T} change?',
      'B: let it bake a bit longer, then rip it out',
      "A: ok, I'll make a ticket",
    ],
    [
      'B: I rewrote the {T} healthcheck script, it was [cursed|held together by tape|unreadable]',
      'A: bless you',
      'B: still a bit cursed, but less',
    ],
    [
      'A: the {T} load test is [running|finally running|queued]',
      'B: fingers crossed',
      'A: numbers look boring so far, which is good',
    ],
    [
      'B: who wrote the {T} retry logic? it retries forever',
      'A: git blame says... me. two years ago',
      'B: lol',
      "A: I'll fix it, shame",
    ],
    [
      'A: I think we should write a postmortem for the {T} blip, even if it was small',
      'B: yes, small ones teach the most',
      "A: I'll draft it",
    ],
    [
      'B: [quick|random|dumb] question, is the {T} behind the VPN or public?',
      'A: behind the VPN, always',
      'B: thought so',
    ],
    [
      'A: the {T} tests take forever now',
      'B: parallelize them?',
      'A: trying, they share state in a very creative way',
    ],
    [
      'B: security wants an inventory of everything the {T} talks to',
      "A: fun. I'll start a list",
      "B#: I'll help after the release",
    ],
    [
      "A#: I'm pairing with {P} on the {T} this afternoon",
      'B: nice, {P} knows that code',
      "A: that's the plan",
    ],
    [
      'B: my terminal just froze in the middle of a {T} deploy',
      'A: oh no',
      "B: it finished fine, my heart didn't",
    ],
    [
      'A: the {T} on-call handover doc is [out of date|a mess|three versions behind]',
      "B#: I'll update it before my shift ends",
      "A: you're a hero",
    ],
    [
      'B: I think the {T} has a memory leak, the graph looks like a staircase',
      "A: or it's the cache warming up",
      'B: for a week?',
      'A: ok, fair, leak',
    ],
    [
      'A: [can we|should we|do we want to] kill the old {T} cron now that the new path works?',
      'B: one more release, then yes',
      "A: I'll put a date on it",
    ],
    ['B: the {T} dependency upgrade PR is huge', 'A: split it by package?', 'B: good call, doing that'],
    [
      'A: I broke the {T} staging env, sorry',
      'B: how badly',
      "A: it's rebuilding, give it twenty minutes",
      "B: ok, I'll get a snack",
    ],
    [
      'B: planning poker for the {T} epic went [wild|nowhere|surprisingly fast]',
      'A: what did we land on?',
      'B: "it depends", as always',
    ],
    [
      'A: do you know why the {T} logs are so verbose?',
      'B: someone left debug logging on after the incident',
      "A: I'll turn it down",
    ],
    [
      'B: I drew a diagram of how the {T} talks to everything else',
      'A: send it! nobody has one',
      "B: it's ugly but correct",
    ],
    [
      'A: the {T} error budget is looking [thin|fine|scary] this month',
      "B: let's hold the risky changes then",
      'A: agreed',
    ],
    ['B: {P} wants a demo of the {T} changes', 'A: I can do a quick screen share later', 'B: perfect'],
    [
      "A: I'm writing tests for the {T} edge cases nobody thought about",
      'B: like what?',
      'A: empty input, huge input, and a unicode name',
      'B: the unicode one always gets us',
    ],
    ['B: the {T} canary looked fine, promoting it', 'A: fingers crossed', 'B: done, all green'],
  ],
  life: [
    [
      'A: [what did you do|how was|anything fun] this weekend?',
      'B: mostly laundry and a long walk, peak adulthood',
      'A: honestly sounds great',
    ],
    [
      'B: I tried a new recipe and [burned it|it was fine|it was actually good]',
      'A: what was it?',
      'B: some one-pan thing from the internet, never again maybe',
    ],
    ["A: it's [so cold|so humid|pouring] out there", "B: same here, I'm not leaving the house", 'A: smart'],
    [
      'B: have you watched anything good lately?',
      "A#: I started a documentary about octopuses, I'm obsessed",
      'B: octopuses are wild',
    ],
    [
      'A: I need a vacation from my vacation plans',
      'B: that bad?',
      'A: too many tabs open, literally and mentally',
    ],
    [
      "B: my neighbor's [dog|kid|parrot] was up all night",
      'A: oof, coffee is your friend today',
      'B: coffee is my only friend',
    ],
    ["A: {P} sent me the funniest video, I'll forward it", 'B: please, I need a laugh', 'A: sent'],
    [
      'B: I keep meaning to call {P} and I keep forgetting',
      "A: set a reminder, that's what I do",
      'B: good idea, doing it now',
    ],
    [
      'A: I went to the farmers market, bought way too many [tomatoes|peaches|herbs]',
      'B: jam time?',
      "A: maybe, if I'm ambitious",
    ],
    [
      'B: my back hurts from sitting all day',
      "A#: get up and stretch, I'll remind you in an hour",
      'B: deal',
    ],
    ['A: [ugh|argh|sigh], my phone screen cracked', 'B: oh no, bad?', "A: just a corner, I'll live with it"],
    ['B: I finally cleaned out the fridge', 'A: brave', 'B: there were things in there I could not identify'],
    [
      'A: do you have any podcast recommendations?',
      'B#: I like the one about history mysteries, super relaxing',
      "A: I'll try it on my walk",
    ],
    ['B: I was thinking about learning a language again', 'A: which one?', "B: no idea yet, that's step one"],
    ['A: I ate lunch at my desk again', 'B: no! go outside tomorrow', "A: I'll try"],
    ['B: {P} says hi, by the way', 'A: say hi back!', 'B: will do'],
    [
      'A: what are you reading right now?',
      'B: a mystery novel, I already guessed the ending',
      'A: those are the best and worst',
    ],
    [
      "B: my plants are [thriving|dying|confused] and I don't know why",
      'A: water? light? vibes?',
      'B: probably vibes',
    ],
    [
      'A#: I signed up for a pottery class on a whim',
      "B: fun! you'll be great",
      "A: we'll see, I have zero skills",
    ],
    [
      'B: I think I need new running shoes, mine are falling apart',
      'A: go to a real shop and let them watch you run',
      'B: good tip',
    ],
    ["A: I can't decide what to cook tonight", 'B: pasta. the answer is always pasta', "A: you're right"],
    ["B: there's a street festival near me, it's so loud", 'A: go join it', 'B: maybe for an hour'],
    ['A: I tried meditating and fell asleep', 'B: that still counts', "A: I'll take it"],
    ['B: my nephew called me "old" today', 'A: brutal', 'B: accurate, but brutal'],
    [
      'A: I got caught in the rain without an umbrella [again|of course|twice today]',
      'B: buy one for every bag',
      'A: I own four, they are all at home',
    ],
    ["B: I'm trying to drink more water", 'A: how is it going?', 'B: I live in the bathroom now'],
    ["A: there's a new bakery on my street", 'B: dangerous', 'A: very. I already have a favourite croissant'],
    [
      'B: I reorganized my bookshelf by colour',
      'A: chaos. how do you find anything?',
      "B: I don't, but it's pretty",
    ],
    ['A: I watched the sunset from the roof', 'B: romantic', 'A: it was me and a pigeon'],
    ['B: my downstairs neighbour started playing the trumpet', 'A: is he good?', 'B: he is enthusiastic'],
    ['A: I booked a massage for the first time in years', 'B: you deserve it', 'A: my shoulders agree'],
    [
      'B: we had a power cut all evening',
      'A: what did you do?',
      'B: board games by candlelight, honestly lovely',
    ],
  ],
  topic: [
    ['A: [ugh|so|ok], {L} again', 'B: what now?', 'A: nothing big, I just keep thinking about it'],
    ['B: any news on {L}?', 'A: not really, same as before', 'B: ok, tell me when there is'],
    ['A: I was telling my mom about {L}', 'B: and?', 'A: she had opinions, as always'],
    ['B: random, but how is {L} going?', 'A: fine I think, ask me next week'],
    ['A: I need to sort out {L} at some point', 'B: this weekend?', 'A: maybe, if I have energy'],
    ['B: I saw something that reminded me of {L}', 'A: haha what', "B: I'll send a photo later"],
    [
      "A: {L} came up at dinner [again|with friends|at my parents' place]",
      'B: of course it did',
      'A: everyone has advice',
    ],
    ['B: did you ever post that photo of {L}?', 'A: not yet, the lighting was bad'],
    [
      'A: I have a funny story about {L}, remind me later',
      "B: now I'm curious",
      'A: later, it needs hand gestures',
    ],
    ['B: are you still stressed about {L}?', 'A: a bit less, thanks for asking'],
  ],
};

export const EN_ASSISTANT_SCENES: ScenePools = {
  eng: [
    [
      'A: can you help me write a commit message for a change to the {T}? it renames a config key and updates the docs',
      'B: Sure. Something like: "Rename the config key and update the docs to match", with a line in the body saying why the old name was confusing.',
    ],
    [
      "A: what's a good way to explain a flaky test to a non-engineer?",
      'B: Say it is a check that sometimes fails for reasons unrelated to the code, like a smoke alarm that goes off when you make toast. It erodes trust, so we fix or remove it.',
    ],
    [
      'A#: I need to write a short status update about the {T} for my manager',
      'B: Keep it to three lines: what changed, what is at risk, what you need. Do you want me to draft it from your notes?',
      'A: no, that structure is enough, thanks',
    ],
    [
      'A: how do I politely push back on a meeting about the {T} that could be an email?',
      'B: You could reply asking for the agenda and offer to answer the questions in writing first, then meet only if something is still open.',
    ],
    [
      'A: give me a checklist for reviewing a pull request',
      'B: Does it do what the ticket says, are there tests that would fail without it, is the naming clear, does it handle errors, and is anything surprising explained in the description?',
    ],
    [
      'A: what should go into a good runbook for the {T}?',
      'B: How to tell it is broken, the first three things to check, how to roll back, who to call, and links to the dashboards. Short beats complete.',
    ],
    [
      'A: I keep getting distracted when I debug the {T}, any tips?',
      'B: Write down the hypothesis before each change and what result would disprove it. It keeps you from wandering. A timer for breaks helps too.',
    ],
    [
      'A: is it worth adding retries to every call the {T} makes?',
      'B: Not every call. Retry idempotent calls with backoff and a cap, and make sure the caller has a deadline, otherwise retries can make an outage worse.',
    ],
    [
      'A: how do I say no to a feature request without sounding rude?',
      'B: Acknowledge the need, explain the trade-off in one sentence, and offer what you can do instead or when you could revisit it.',
    ],
    [
      "A: explain canary deploys to me like I'm tired",
      'B: You send a small slice of traffic to the new version first, watch the numbers, and only then send everyone. If the slice looks bad, you roll back before most users notice.',
    ],
    [
      'A#: I have to present the {T} architecture next week and I hate slides',
      'B: Try one diagram and three stories: a request going through it, a failure, and a change you are planning. People remember stories more than boxes.',
    ],
    [
      'A: what is a reasonable way to name feature flags?',
      'B: Name them after the behaviour, not the ticket, add the owner and a removal date in the description, and delete them once the rollout is done.',
    ],
    [
      'A: can you help me plan my week? too many things around the {T}',
      'B: List everything, mark what has a hard deadline, and pick at most three things per day. The rest goes to a later list without guilt.',
    ],
    [
      'A: I wrote a long message to the team about the {T}, is it too much?',
      'B: If it is more than a screen, put the decision and the ask in the first two lines and the details below. Most people will read only the top.',
    ],
    [
      'A: how do I write a good incident summary for the {T}?',
      'B: Start with the impact in one sentence, then the timeline, the cause, and what you are changing. Keep blame out of it.',
    ],
    [
      'A: is it better to fix the {T} bug now or after the release?',
      'B: If it affects users now and the fix is small and tested, do it now. Otherwise note it, ship, and fix it first thing after.',
    ],
    [
      'A#: I have to onboard a new person to the {T}, where do I start?',
      'B: Give them a small real task on day one, pair on it, and keep a list of every question they ask. That list becomes the missing docs.',
    ],
    [
      "A: what's a sensible way to estimate the {T} work?",
      'B: Break it into pieces you could each finish in a day or two, estimate those, and add a buffer for unknowns. Revisit after the first week.',
    ],
    [
      'A: my standup updates are boring, help',
      'B: Say what you finished, what you are doing next and what is blocking you. One line each. Boring is fine if it is short.',
    ],
    [
      'A: how do I ask for a code review without annoying people?',
      'B: Keep the change small, explain what to look at first, and say when you need it. Offer to review something of theirs in return.',
    ],
    [
      'A: can you explain what a circuit breaker is in one paragraph?',
      'B: It stops calling a failing dependency for a while after too many errors, so the caller fails fast instead of piling up. After a pause it lets a few calls through to see if things recovered.',
    ],
    [
      'A: I keep writing TODOs in the {T} and never doing them',
      'B: Turn the ones that matter into tickets with an owner and delete the rest. A TODO without an owner is a wish.',
    ],
    [
      'A: how should I structure a design doc for the {T}?',
      'B: Problem, goals and non-goals, the proposal, alternatives you rejected and why, and open questions. A diagram helps more than text.',
    ],
    [
      'A: what do I say in a retro when everything went fine?',
      'B: Name what made it go fine so you keep doing it, and pick one small thing to try next time. Fine retros can be short.',
    ],
  ],
  life: [
    [
      'A: give me an idea for a cheap weeknight dinner',
      'B: A tray of roasted vegetables with chickpeas and a yoghurt sauce. Fifteen minutes of work, the oven does the rest.',
    ],
    [
      'A: how do I get better at waking up early?',
      'B: Move your bedtime first, not the alarm, keep the same wake time on weekends, and get daylight soon after you get up.',
    ],
    [
      'A#: I want to send {P} a nice message, they had a rough week',
      'B: Keep it simple: say you noticed, that you are thinking of them, and offer one concrete thing, like dropping off food or a call.',
    ],
    [
      "A: what's a good gift for someone who has everything?",
      'B: An experience or something consumable: a class, a nice meal, good tea or coffee. Or a photo book of something you did together.',
    ],
    [
      'A: I feel like I never have time to read anymore',
      'B: Try ten minutes before bed with your phone in another room. Small and regular beats long and rare.',
    ],
    [
      'A: how long should I rest after a cold before running again?',
      'B: Wait until the symptoms are mostly gone, then start easy and short. If it is in your chest or you have a fever, give it longer.',
    ],
    [
      'A: suggest a houseplant that is hard to kill',
      'B: A snake plant or a pothos. Both tolerate low light and forgetting to water them for a while.',
    ],
    [
      "A: I need to reply to a wedding invite but I'm not sure I can go",
      'B: You can reply that you would love to be there and will confirm by a specific date. That is honest and gives the couple what they need.',
    ],
    [
      'A: help me pack for a weekend away, I always overpack',
      'B: Plan outfits per day, one pair of extra shoes at most, and a small bag for chargers. If you are unsure about an item, leave it.',
    ],
    [
      'A: how do I make small talk with neighbours less awkward?',
      'B: Ask about something you can both see: the building, the weather, their plants or their dog. Open questions, and be fine with short answers.',
    ],
    [
      'A: what should I do with a bunch of overripe bananas?',
      'B: Banana bread, or freeze them in pieces for smoothies. Pancakes with mashed banana work too.',
    ],
    [
      'A: any tips for a long drive?',
      'B: Stop every two hours, keep water and snacks within reach, and download podcasts or music before you leave in case the signal drops.',
    ],
    [
      'A: I want to start journaling but it feels silly',
      'B: Start with three lines a day: what happened, how you felt, one thing you are looking forward to. No one else reads it.',
    ],
    [
      'A: is it rude to leave a party early?',
      'B: Not if you thank the host and say goodbye. Leaving without a word is what people notice.',
    ],
    [
      'A: how do I keep a conversation going with {P}? we always run out of things to say',
      'B: Ask follow-up questions about what they just said, share a small story of your own, and do not be afraid of a short silence.',
    ],
    [
      'A: what do I do about a noisy neighbour without starting a war?',
      'B: Talk to them in person at a calm moment, say what time the noise bothers you and ask if they can help. Most people simply do not know.',
    ],
    [
      'A: I want to get back into running, how do I start?',
      'B: Alternate walking and easy running for twenty to thirty minutes, three times a week, and add a little each week. Slow is the point at first.',
    ],
    [
      'A: what should I cook for friends who are coming over?',
      'B: Something that waits well: a big pot of chili, a tray bake, or pasta with a sauce you make ahead. Then you can talk instead of cook.',
    ],
    [
      'A: give me a quick stretch routine for after sitting all day',
      'B: Neck rolls, shoulder circles, a standing hamstring stretch and a hip flexor lunge, thirty seconds each. Five minutes in total.',
    ],
    [
      "A: how do I stop buying things I don't need online?",
      'B: Leave things in the cart for two days before buying, unsubscribe from shop emails, and take the card details out of the browser.',
    ],
    [
      "A: I can't decide between two apartments",
      'B: Compare the commute, the light, the noise and the monthly total with bills. Then imagine a normal rainy evening in each one.',
    ],
    [
      'A: any ideas for a rainy day with nothing planned?',
      'B: Cook something slow, start a puzzle, sort old photos, or go to a museum you keep meaning to visit.',
    ],
    [
      "A: how do I remember people's names better?",
      'B: Repeat the name when you hear it, connect it to something about the person, and use it once more when you say goodbye.',
    ],
    [
      "A: I'm nervous about a dentist appointment",
      'B: Tell the dentist at the start, agree on a hand signal for a pause, and bring headphones if they allow it. It helps to know you can stop.',
    ],
    [
      'A: suggest something relaxing to do in the evening without a screen',
      "B: A bath, a short walk, a paper book, stretching, or writing down tomorrow's three tasks so your head can let go.",
    ],
    [
      'A: how do I keep herbs fresh longer?',
      'B: Treat soft herbs like flowers in a glass of water, wrap hard ones like rosemary in a damp paper towel in the fridge.',
    ],
    [
      "A: what's a good way to say thank you to a neighbour who helped me?",
      'B: A short handwritten note and something small: baked goods, flowers, or offering to return the favour.',
    ],
    [
      "A: I want a weekend trip that isn't expensive",
      'B: Pick somewhere reachable by train, stay one night, plan one paid thing and walk the rest. Markets and parks are free.',
    ],
  ],
  topic: [
    [
      'A: I keep going back and forth about {L}',
      'B: That is normal. Which part are you unsure about?',
      "A: I'll think about it and come back",
    ],
    ['A: can we talk about {L} another time? not today', 'B: Of course, whenever you are ready.'],
    [
      'A: {L} is on my mind a lot lately',
      'B: Do you want to talk it through, or just note it for later?',
      'A: just noting it',
    ],
    [
      'A: remind me to think about {L} next week',
      "B: I can't set reminders, but you could put it in your calendar now so it doesn't slip.",
    ],
    [
      "A: a friend asked me about {L} and I didn't know what to say",
      "B: It is fine to say you haven't decided yet, or that you would rather not get into it.",
    ],
    ['A: I told my family about {L}', 'B: How did they take it?', 'A: better than expected'],
    [
      'A: is it silly that {L} makes me this happy?',
      'B: Not at all. Small things carry a lot of a good week.',
    ],
    [
      "A: I wrote down some thoughts about {L} but I'm not ready to share them",
      'B: That is fine. Writing them down is already useful.',
    ],
  ],
};

export const ZH_PEER_SCENES: ScenePools = {
  eng: [
    [
      'A: {T}那个偶发失败的用例又挂了',
      'B: 是只在流水线上挂的那个吗',
      'A: 对，本地怎么跑都是好的',
      'B: [经典|果然|太真实了]',
    ],
    [
      'B: 你看今天早上{T}的监控了吗，[一片红|有个尖刺|怪怪的]',
      'A: 看了，应该是发布引起的，后面就平了',
      'B: 那我先不动了',
    ],
    ['A: 有空帮我看下{T}的合并请求吗，改动很小', 'B: "很小"，行，吃完饭看', 'A: [谢啦|爱你|欠你一杯奶茶]'],
    [
      'B: {T}的告警[最近|这周|又]太吵了',
      'A: 我先静音了两个，阈值得好好重写一下',
      'B: 放到复盘会的待办里吧',
      'A: 加上了',
    ],
    ['A: [唉|哎|服了]，{T}的构建又挂了', 'B: 依赖的问题？', 'A: 锁文件冲突，我在修'],
    ['B: {T}的清理这个迭代做还是下个迭代？', 'A: 下个吧，这个迭代已经塞满了', 'B: 行'],
    ['A: 我翻了[一个小时|一上午|好久]{T}的日志，白看了', 'B: 啥也没发现？', 'A: 问题一直在客户端', 'B: 心疼'],
    [
      'B: {P}问{T}有没有文档',
      'A: 有一个[上古时期|两次组织调整之前|我入职前]的说明',
      'B: 那就是没有',
      'A: 对，没有',
    ],
    ['A: 我想给{T}多加点链路追踪，你觉得呢', 'B: 加吧，现在完全是黑盒', 'A: 好，我先从慢的接口开始'],
    [
      'B: {T}迁移方案的文档有[几十条|上百条|好多]评论了',
      'A#: 我[今晚|明天|站会后]一定看',
      'B: 至少看下最后一节',
    ],
    ['A: 这周{T}到底有没有人值班', 'B: 排班表上有，好像是{P}', 'A: 那就好'],
    ['B: 站会又开超时了', 'A: {T}那个讨论应该单独开个会', 'B: 同意，我去提一下'],
    ['A: {T}那个改动外面的开关还要留着吗', 'B: 再观察几天再删', 'A: 好，我建个任务'],
    [
      'B: 我把{T}的健康检查脚本重写了，原来的[太玄学了|全靠胶带粘着|根本看不懂]',
      'A: 辛苦辛苦',
      'B: 还是有点玄学，但好多了',
    ],
    ['A: {T}的压测[在跑了|终于跑起来了|在排队]', 'B: 保佑', 'A: 目前数据很平淡，挺好'],
    [
      'B: {T}的重试逻辑谁写的，会无限重试',
      'A: 我看了下提交记录……是我，两年前',
      'B: 哈哈哈',
      'A: 我来修，丢人',
    ],
    ['A: {T}那次小抖动我觉得也该写个复盘', 'B: 对，小问题最能学到东西', 'A: 我先起个草稿'],
    ['B: 问个[小|傻]问题，{T}是内网的还是公网能访问？', 'A: 只走内网', 'B: 我就猜是'],
    ['A: {T}的测试现在跑得好慢', 'B: 并行跑呢？', 'A: 在试，它们共享状态共享得很有创意'],
    ['B: 安全那边要{T}所有依赖的清单', 'A: 好玩。我先列一个', 'B#: 发版后我来帮你'],
    ['A#: 下午我和{P}一起看{T}的代码', 'B: 挺好，{P}熟那块', 'A: 就是这么打算的'],
    ['B: 我在{T}发布到一半的时候终端卡死了', 'A: 啊', 'B: 最后发成功了，我的心脏没成功'],
    ['A: {T}的值班交接文档[过期了|乱七八糟|落后三个版本了]', 'B#: 我下班前更新一下', 'A: 英雄'],
    ['B: 我觉得{T}有内存泄漏，曲线跟台阶一样', 'A: 会不会是缓存在预热', 'B: 预热一周？', 'A: 好吧，是泄漏'],
    ['A: 新链路跑通了，{T}旧的定时任务[能不能|要不要|是不是可以]下掉了', 'B: 再等一个版本', 'A: 我定个日子'],
    ['B: {T}升级依赖的合并请求太大了', 'A: 按包拆开？', 'B: 好主意，我拆一下'],
    ['A: 我把{T}的测试环境搞坏了，抱歉', 'B: 多严重', 'A: 在重建，等二十分钟', 'B: 行，我去买点吃的'],
    ['B: {T}那个大需求的估点会[吵翻了|没结论|出奇地快]', 'A: 最后定了多少', 'B: 「看情况」，老样子'],
    ['A: 你知道{T}的日志为啥这么多吗', 'B: 事故后有人忘了关调试日志', 'A: 我调低一下'],
    ['B: 我画了张{T}和其他系统交互的图', 'A: 快发我，从来没人画过', 'B: 丑但是对'],
    ['A: {T}这个月的错误预算[有点紧|还行|很吓人]', 'B: 那高风险的改动先缓缓', 'A: 同意'],
    ['B: {P}想看一下{T}改动的演示', 'A: 晚点我投屏讲一下', 'B: 完美'],
    [
      'A: 我在给{T}补边界情况的测试',
      'B: 比如？',
      'A: 空输入、超大输入、还有带表情符号的名字',
      'B: 表情符号那个每次都坑我们',
    ],
    ['B: {T}灰度看着没问题，我全量了', 'A: 保佑', 'B: 好了，全绿'],
  ],
  life: [
    ['A: 周末[干嘛了|过得怎么样|有啥好玩的]？', 'B: 洗衣服加散步，标准的成年人周末', 'A: 听着挺好的'],
    ['B: 我试了个新菜谱，[糊了|还行|居然挺好吃]', 'A: 做的啥', 'B: 网上的一锅出，下次再说吧'],
    ['A: 外面[好冷|好闷|下大雨]', 'B: 我这也是，不出门了', 'A: 明智'],
    ['B: 最近有什么好看的剧吗', 'A#: 在看一个讲章鱼的纪录片，上头了', 'B: 章鱼真的很神奇'],
    ['A: 做旅行攻略做得我想再休个假', 'B: 这么累？', 'A: 浏览器开了几十个标签页，脑子也是'],
    ['B: 邻居家的[狗|小孩|鹦鹉]闹了一晚上', 'A: 惨，今天多喝点咖啡', 'B: 咖啡是我唯一的朋友'],
    ['A: {P}给我发了个超搞笑的视频，我转你', 'B: 快，我需要笑一下', 'A: 发了'],
    ['B: 我一直想给{P}打电话，一直忘', 'A: 定个提醒，我都这么干', 'B: 好主意，现在就定'],
    ['A: 去逛了菜市场，买了一堆[西红柿|桃子|香菜]', 'B: 做果酱？', 'A: 看我有没有这个勤快劲'],
    ['B: 坐了一天腰好疼', 'A#: 起来活动一下，一小时后我提醒你', 'B: 好'],
    ['A: [哎|唉|啊啊啊]，手机屏幕摔裂了', 'B: 严重吗', 'A: 就一个角，凑合用'],
    ['B: 我终于把冰箱清理了', 'A: 勇士', 'B: 里面有些东西我都认不出来了'],
    ['A: 有没有好听的播客推荐', 'B#: 我喜欢一个讲历史悬案的，很解压', 'A: 散步的时候听听'],
    ['B: 我又想学一门外语了', 'A: 学哪个？', 'B: 还没想好，这是第一步'],
    ['A: 又在工位上吃的午饭', 'B: 不行！明天出去走走', 'A: 尽量'],
    ['B: 对了，{P}让我跟你问好', 'A: 替我问好！', 'B: 好嘞'],
    ['A: 你最近在看什么书', 'B: 一本推理小说，结局我已经猜到了', 'A: 这种最爽也最气'],
    ['B: 我的绿植[长疯了|快死了|很迷茫]，不知道为啥', 'A: 浇水？光照？玄学？', 'B: 大概是玄学'],
    ['A#: 我一时冲动报了个陶艺课', 'B: 好玩！你肯定行', 'A: 再说吧，我手很笨'],
    ['B: 我的跑鞋快烂了，得买双新的', 'A: 去实体店让店员看你跑两步', 'B: 好建议'],
    ['A: 今晚不知道吃啥', 'B: 面条，答案永远是面条', 'A: 你说得对'],
    ['B: 我家附近有个市集，好吵', 'A: 去凑个热闹呗', 'B: 去逛一小时吧'],
    ['A: 我试着冥想，结果睡着了', 'B: 也算', 'A: 我接受'],
    ['B: 我外甥说我「老了」', 'A: 太狠了', 'B: 说得对，但太狠了'],
    ['A: 我又[没带伞被淋了|被雨淋了|淋成落汤鸡]', 'B: 每个包里放一把', 'A: 我有四把，全在家里'],
    ['B: 我在努力多喝水', 'A: 效果咋样', 'B: 一直在跑厕所'],
    ['A: 我家楼下新开了家面包店', 'B: 危险', 'A: 非常危险，我已经有最爱的可颂了'],
    ['B: 我把书架按颜色重新排了', 'A: 那你怎么找书', 'B: 找不到，但是好看'],
    ['A: 在楼顶看了日落', 'B: 好浪漫', 'A: 我和一只鸽子'],
    ['B: 楼下邻居开始练小号了', 'A: 吹得好吗', 'B: 很有热情'],
    ['A: 好多年没按摩了，约了一次', 'B: 你值得', 'A: 我的肩膀也这么觉得'],
    ['B: 我们这停电停了一晚上', 'A: 那你们干嘛了', 'B: 点蜡烛玩桌游，其实挺好的'],
  ],
  topic: [
    ['A: [唉|哎|说起来]，又是{L}', 'B: 又怎么了', 'A: 没什么，就是老想着'],
    ['B: {L}有新进展吗', 'A: 没有，跟之前一样', 'B: 有了告诉我'],
    ['A: 我跟我妈说了{L}', 'B: 然后呢', 'A: 她意见很多，老样子'],
    ['B: 突然想问，{L}怎么样了', 'A: 应该还行吧，下周再问我'],
    ['A: {L}我得找时间处理一下', 'B: 这周末？', 'A: 看我有没有力气'],
    ['B: 我看到个东西让我想起{L}', 'A: 哈哈什么', 'B: 晚点发你照片'],
    ['A: 吃饭的时候[又|跟朋友|在我爸妈家]聊到{L}了', 'B: 果然', 'A: 每个人都有建议'],
    ['B: {L}的照片你发朋友圈了吗', 'A: 还没，光线不好'],
    ['A: 关于{L}我有个好笑的事，晚点讲', 'B: 好奇死了', 'A: 晚点，得配动作'],
    ['B: 你还在为{L}发愁吗', 'A: 好点了，谢谢关心'],
  ],
};

export const ZH_ASSISTANT_SCENES: ScenePools = {
  eng: [
    [
      'A: 帮我写个{T}改动的提交说明，主要是改了一个配置项的名字，顺便更新了文档',
      'B: 可以这样写："重命名配置项并同步更新文档"，正文里再说一句旧名字为什么容易误解。',
    ],
    [
      'A: 怎么跟不懂技术的人解释偶发失败的测试？',
      'B: 可以说它像烤面包时会响的烟雾报警器：有时失败和代码无关，但会让大家不再信任它，所以要么修好要么删掉。',
    ],
    [
      'A#: 我要给领导写个{T}的进展简报',
      'B: 控制在三行：改了什么、有什么风险、需要什么支持。要我根据你的笔记起个草稿吗？',
      'A: 不用，这个结构就够了',
    ],
    [
      'A: 怎么委婉地拒绝一个关于{T}的、其实发邮件就能解决的会？',
      'B: 可以回复问一下议程，说可以先书面回答问题，如果还有没解决的再开会。',
    ],
    [
      'A: 给我一个代码评审的检查清单',
      'B: 是否实现了需求、有没有不加这段代码就会失败的测试、命名是否清楚、错误处理是否到位、让人意外的地方有没有在描述里说明。',
    ],
    [
      'A: {T}的运维手册应该写些什么？',
      'B: 怎么判断它坏了、最先检查的三件事、怎么回滚、找谁、监控面板的链接。短比全更重要。',
    ],
    [
      'A: 我排查{T}的问题时老是走神，有什么办法',
      'B: 每次改动前先写下假设和能推翻它的结果，这样不容易跑偏。再加个番茄钟提醒休息。',
    ],
    [
      'A: {T}调用的每个接口都要加重试吗？',
      'B: 不用全加。幂等的调用加带退避和上限的重试，调用方要有截止时间，否则重试会放大故障。',
    ],
    [
      'A: 怎么拒绝一个需求又不显得没礼貌？',
      'B: 先承认需求合理，用一句话讲清取舍，再给出你能做的替代方案或者什么时候可以再评估。',
    ],
    [
      'A: 用最省脑子的方式给我讲讲灰度发布',
      'B: 先把一小部分流量切到新版本，看指标，没问题再全量。如果这部分表现不好，在大多数用户察觉前就回滚。',
    ],
    [
      'A#: 下周要讲{T}的架构，我最讨厌做幻灯片',
      'B: 试试一张图加三个故事：一个请求怎么走、一次故障、一个正在计划的改动。大家记故事比记方框容易。',
    ],
    [
      'A: 功能开关怎么命名比较好？',
      'B: 按行为命名而不是按需求单号，描述里写负责人和删除日期，灰度完就删掉。',
    ],
    [
      'A: 帮我规划一下这周，{T}相关的事太多了',
      'B: 先全部列出来，标出有硬截止的，每天最多挑三件。剩下的放到以后的清单里，不用内疚。',
    ],
    [
      'A: 我给团队写了一大段关于{T}的说明，是不是太长了',
      'B: 超过一屏的话，把结论和需要大家做的事放在前两行，细节放后面。大多数人只看开头。',
    ],
    ['A: {T}的事故总结怎么写比较好？', 'B: 先用一句话说影响，再列时间线、原因和要改的地方。不要追究个人。'],
    [
      'A: {T}这个 bug 是现在修还是发版后修？',
      'B: 如果现在就影响用户、改动小且测过，就现在修；否则记下来，先发版，发完第一时间修。',
    ],
    [
      'A#: 要带一个新人熟悉{T}，从哪开始？',
      'B: 第一天就给一个小的真实任务，一起做，把对方问的每个问题记下来，这份清单就是缺的文档。',
    ],
    [
      'A: {T}的工作量怎么估比较靠谱？',
      'B: 拆成一两天能做完的小块分别估，再留一些缓冲，做完第一周再回头校准。',
    ],
    ['A: 我的站会发言太无聊了', 'B: 说完成了什么、接下来做什么、被什么卡住，每项一句。短就不无聊。'],
    [
      'A: 怎么请人评审代码又不招人烦？',
      'B: 改动尽量小，说明先看哪里，说清楚什么时候需要，顺便主动帮对方评审。',
    ],
    [
      'A: 用一段话解释一下熔断器',
      'B: 依赖连续出错太多时，暂时不再调用它，让调用方快速失败而不是越积越多。过一会儿放少量请求试探是否恢复。',
    ],
    [
      'A: 我在{T}里写了好多 TODO 从来没做',
      'B: 重要的转成有负责人的任务，其余删掉。没有负责人的 TODO 只是愿望。',
    ],
    [
      'A: {T}的设计文档怎么组织？',
      'B: 问题、目标和非目标、方案、被否掉的备选及原因、待定问题。一张图胜过大段文字。',
    ],
    [
      'A: 一切顺利的时候复盘会说什么？',
      'B: 说清楚是什么让它顺利，以便继续保持，再挑一件下次想尝试的小事。顺利的复盘可以很短。',
    ],
  ],
  life: [
    ['A: 给我推荐个简单的工作日晚饭', 'B: 烤盘蔬菜加鹰嘴豆，配一点酸奶酱。动手十五分钟，剩下交给烤箱。'],
    ['A: 怎么才能早起？', 'B: 先提前睡觉而不是提前闹钟，周末也保持同样的起床时间，起床后尽快见见阳光。'],
    [
      'A#: 想给{P}发条暖心的消息，ta这周很难',
      'B: 简单点：说你注意到了、在想着ta，再提一件具体的事，比如给ta送点吃的或者打个电话。',
    ],
    [
      'A: 送什么给什么都不缺的人？',
      'B: 送体验或者消耗品：一节课、一顿好饭、好茶好咖啡。或者做一本你们一起经历过的照片书。',
    ],
    ['A: 感觉我再也没时间看书了', 'B: 试试睡前十分钟，把手机放到别的房间。少而规律比多而偶尔更好。'],
    [
      'A: 感冒好了多久可以恢复跑步？',
      'B: 等症状基本消失，先轻松地短跑。如果在胸口或者发烧，就多休息一段时间。',
    ],
    ['A: 推荐一种不容易养死的绿植', 'B: 虎皮兰或者绿萝，都耐阴，忘了浇水也能撑一阵。'],
    [
      'A: 收到婚礼请柬，但不确定能不能去，怎么回？',
      'B: 可以说很想去，会在某个具体日期前确认。这样既诚实，也让新人好安排。',
    ],
    [
      'A: 帮我收拾周末出门的行李，我老是带太多',
      'B: 按天配好衣服，最多多带一双鞋，充电器放一个小袋子。拿不准的东西就别带。',
    ],
    [
      'A: 跟邻居寒暄怎么不尴尬？',
      'B: 聊彼此都看得见的东西：楼里的事、天气、ta的花或者狗。问开放式问题，回答短也没关系。',
    ],
    ['A: 一堆熟过头的香蕉怎么处理？', 'B: 做香蕉面包，或者切块冷冻打奶昔。香蕉松饼也不错。'],
    [
      'A: 长途开车有什么建议？',
      'B: 每两小时休息一次，水和零食放在手边，出发前下载好播客和音乐，以防没信号。',
    ],
    ['A: 想开始写日记但觉得有点傻', 'B: 每天三行就好：发生了什么、感觉怎样、期待的一件事。反正没人看。'],
    ['A: 聚会提前走算不算不礼貌？', 'B: 跟主人道谢告别就不算。不打招呼就走才会让人在意。'],
    ['A: 跟{P}聊天老是冷场怎么办', 'B: 顺着对方刚说的追问，分享一个自己的小故事，短暂的沉默也不用怕。'],
    [
      'A: 邻居太吵，怎么说才不会闹僵？',
      'B: 找个平静的时候当面说，讲清楚哪个时间段的噪音影响你，请对方帮忙。大多数人只是不知道。',
    ],
    [
      'A: 想重新开始跑步，怎么入门？',
      'B: 走跑结合，每次二三十分钟，一周三次，每周加一点。一开始慢就是目的。',
    ],
    [
      'A: 朋友要来家里，做什么菜好？',
      'B: 做能等的菜：一大锅炖菜、烤盘菜，或者提前做好酱的意面。这样你可以聊天而不是一直在厨房。',
    ],
    ['A: 给我一套久坐后的拉伸动作', 'B: 转脖子、绕肩、站姿拉腿后侧、弓步拉髋，每个三十秒，一共五分钟。'],
    ['A: 怎么控制网购乱买东西？', 'B: 加购后放两天再决定，退订商家邮件，把浏览器里保存的银行卡删掉。'],
    [
      'A: 两套房子在纠结选哪个',
      'B: 比较通勤、采光、噪音和含水电的月开销，再想象在每套里过一个普通的下雨晚上。',
    ],
    ['A: 下雨天没安排，干点啥？', 'B: 慢炖一锅菜、拼拼图、整理旧照片，或者去一直想去的博物馆。'],
    ['A: 怎么更好地记住别人的名字？', 'B: 听到时重复一遍，和对方的某个特点联系起来，告别时再叫一次。'],
    [
      'A: 要去看牙，有点紧张',
      'B: 一开始就告诉医生，约定一个暂停的手势，如果允许就戴上耳机。知道随时可以停会好很多。',
    ],
    [
      'A: 推荐点晚上不看屏幕也能放松的事',
      'B: 泡个澡、散散步、看纸质书、拉伸，或者写下明天的三件事，让脑子放下。',
    ],
    [
      'A: 香菜、葱怎么保存得久一点？',
      'B: 软的香草像插花一样泡在水杯里，迷迭香这类硬的用湿厨房纸包好放冰箱。',
    ],
    [
      'A: 邻居帮了我，怎么表示感谢比较好？',
      'B: 写张手写的小卡片，配一点小东西：自己烤的点心、一束花，或者说下次有需要找你。',
    ],
    [
      'A: 想来个不贵的周末短途',
      'B: 选坐火车能到的地方，住一晚，只安排一个收费项目，其他时间走走逛逛，市集和公园都免费。',
    ],
  ],
  topic: [
    ['A: 关于{L}我一直在纠结', 'B: 很正常。你最拿不准的是哪一部分？', 'A: 我再想想，回头再说'],
    ['A: {L}我们改天再聊吧，今天不想说', 'B: 当然，你准备好了随时说。'],
    ['A: 最近老想着{L}', 'B: 想聊聊，还是先记一笔？', 'A: 先记一笔'],
    ['A: 下周提醒我想想{L}', 'B: 我没法设提醒，不过你可以现在放进日历，免得忘了。'],
    ['A: 朋友问我{L}，我不知道怎么回答', 'B: 可以说还没想好，或者说暂时不想聊，都没关系。'],
    ['A: 我跟家里人说了{L}', 'B: 他们怎么说？', 'A: 比我想的好'],
    ['A: {L}让我这么开心，是不是有点傻', 'B: 一点也不。小事往往撑起一个好的一周。'],
    ['A: 我写了些关于{L}的想法，还不想给别人看', 'B: 没关系，写下来本身就有用。'],
  ],
};
