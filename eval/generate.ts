/**
 * Assembles the recall eval set from the hand-written blocks in eval/blocks/ and writes one JSON file per
 * conversation into eval/data/ (committed; rerun after editing a block: `npx tsx eval/generate.ts`).
 * Each conversation is its hand-written sessions plus the months around them that eval/grow.ts assembles
 * from the conversation's world (blocks/worlds.ts) and the hand-written wording in blocks/growth.ts and
 * blocks/scenes.ts; every question records the other turns that carry its answer (`near_miss`).
 * Deterministic: a fixed seed places the filler turns, grows the sessions and spaces the timestamps, so the
 * same blocks give byte-identical files. Fails, writing nothing, when the check in lib/dataset.ts finds a
 * problem.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from '../bench/lib/generate';
import type { RawMessage } from '../sidecar/pipeline/types';
import { EN1 } from './blocks/en1';
import { EN2 } from './blocks/en2';
import { EN3 } from './blocks/en3';
import { ASIDES } from './blocks/asides';
import { LATER } from './blocks/later';
import {
  EN_ASSISTANT,
  EN_PEER,
  EN_USER,
  ZH_ASSISTANT,
  ZH_PEER,
  ZH_USER,
  type FillerPools,
} from './blocks/fillers';
import type { ConversationBlock } from './blocks/types';
import { ZH1 } from './blocks/zh1';
import { ZH2 } from './blocks/zh2';
import { grow } from './grow';
import { answerParts, carries } from './lib/carriers';
import {
  checkDataset,
  DATA_DIR,
  describeDataset,
  type Conversation,
  type Question,
  type TurnLabel,
} from './lib/dataset';

const SEED = 20261201;
const TURN_RE = /^([AB])(#([\w-]*))?: ([\s\S]+)$/;
const ASIDE_RE = /^(?:(\d+)\|)?([AB]): ([\s\S]+)$/;

interface ParsedTurn {
  who: 'A' | 'B';
  fact: boolean;
  label?: string;
  text: string;
}

/** Draws lines from a pool without replacement (reshuffling once it is used up). */
class Drawer {
  private bag: string[] = [];
  constructor(
    private readonly lines: readonly string[],
    private readonly rand: () => number,
  ) {}
  /** The next line not in `avoid` (the lines this conversation already has), if the pool allows. */
  next(avoid: Set<string>): string {
    for (let tries = 0; tries < this.lines.length; tries++) {
      const line = this.take();
      if (!avoid.has(line)) return line;
      this.bag.unshift(line);
    }
    return this.take();
  }
  private take(): string {
    if (!this.bag.length) {
      this.bag = [...this.lines];
      for (let i = this.bag.length - 1; i > 0; i--) {
        const j = Math.floor(this.rand() * (i + 1));
        [this.bag[i], this.bag[j]] = [this.bag[j]!, this.bag[i]!];
      }
    }
    return this.bag.pop()!;
  }
}

function drawers(pools: FillerPools, rand: () => number): { open: Drawer; close: Drawer } {
  return { open: new Drawer(pools.open, rand), close: new Drawer(pools.close, rand) };
}

function build(written: ConversationBlock[]): Conversation[] {
  const blocks = written.map((b) => (LATER[b.id] ? { ...b, sessions: [...b.sessions, LATER[b.id]!] } : b));
  const rand = prng(SEED);
  const pools = {
    en: {
      peer: drawers(EN_PEER, rand),
      user: drawers(EN_USER, rand),
      assistant: drawers(EN_ASSISTANT, rand),
    },
    zh: {
      peer: drawers(ZH_PEER, rand),
      user: drawers(ZH_USER, rand),
      assistant: drawers(ZH_ASSISTANT, rand),
    },
  };
  return blocks.map((b) => {
    const short = b.id.split('-').slice(0, 2).join('');
    const speakers = { A: b.a, B: b.b };
    const withAssistant = b.a.role === 'assistant' || b.b.role === 'assistant';
    const filler = (who: 'A' | 'B', where: 'open' | 'close'): string => {
      const p = pools[b.lang];
      const d = !withAssistant ? p.peer : speakers[who].role === 'assistant' ? p.assistant : p.user;
      const line = d[where].next(used);
      used.add(line);
      return line;
    };
    const used = new Set<string>();
    const labelIds = new Map<string, string>();
    const labels: Record<string, TurnLabel> = {};
    const parsedSessions: ParsedTurn[][] = b.sessions.map((s, si) =>
      s.turns.map((t) => {
        const m = TURN_RE.exec(t);
        if (!m)
          throw new Error(
            `${b.id} session ${si + 1}: turn "${t.slice(0, 40)}" is not "A: ..." or "B#label: ...".`,
          );
        return {
          who: m[1] as 'A' | 'B',
          fact: m[2] !== undefined,
          label: m[3] || undefined,
          text: m[4]!.trim(),
        };
      }),
    );
    // Asides go right after a statement (not a question) of the same speaker that the other speaker does not
    // answer next (the speaker goes on, or the session ends), so no reply loses the turn it answers.
    let lastAck = '';
    for (const a of ASIDES[b.id] ?? []) {
      const m = ASIDE_RE.exec(a);
      if (!m) throw new Error(`${b.id}: aside "${a.slice(0, 40)}" is not "A: ..." or "2|B: ...".`);
      const who = m[2] as 'A' | 'B';
      const pinned = m[1] ? Number(m[1]) - 1 : undefined;
      if (pinned !== undefined && !parsedSessions[pinned])
        throw new Error(`${b.id}: aside pinned to missing session ${m[1]}.`);
      // With an assistant, the user says it after an assistant turn and the assistant acknowledges it.
      const spotsIn = (turns: ParsedTurn[]): number[] =>
        turns
          .map((_, i) => i)
          .filter((i) =>
            withAssistant
              ? i > 0 &&
                speakers[turns[i]!.who].role === 'assistant' &&
                speakers[who].role === 'user' &&
                !/[?？]\s*$/.test(turns[i]!.text)
              : i > 0 &&
                turns[i]!.who === who &&
                !/[?？]\s*$/.test(turns[i]!.text) &&
                (i === turns.length - 1 || turns[i + 1]!.who === who),
          );
      const open = parsedSessions
        .map((_, i) => i)
        .filter((i) => (pinned === undefined || i === pinned) && spotsIn(parsedSessions[i]!).length);
      if (!open.length)
        throw new Error(
          `${b.id}: no place for the aside "${a.slice(0, 40)}"${pinned !== undefined ? ` in session ${pinned + 1}` : ''}.`,
        );
      const turns = parsedSessions[open[Math.floor(rand() * open.length)]!]!;
      const spots = spotsIn(turns);
      const at = spots[Math.floor(rand() * spots.length)]!;
      const connectors =
        b.lang === 'zh' ? ['对了，', '另外，', '顺便说一下，'] : ['btw ', 'oh and ', 'also '];
      const text =
        rand() < 0.5 ? connectors[Math.floor(rand() * connectors.length)]! + m[3]!.trim() : m[3]!.trim();
      const insert: ParsedTurn[] = [{ who, fact: true, text }];
      if (withAssistant) {
        const acks =
          b.lang === 'zh'
            ? ['好的，记下了。', '明白。', '了解。', '收到。', '好的。']
            : ['Noted.', 'Got it.', 'Good to know.', 'Thanks for telling me.', 'Understood.'];
        let ack = acks[Math.floor(rand() * acks.length)]!;
        if (ack === lastAck) ack = acks[(acks.indexOf(ack) + 1) % acks.length]!;
        lastAck = ack;
        insert.push({ who: who === 'A' ? 'B' : 'A', fact: false, text: ack });
      }
      turns.splice(at + 1, 0, ...insert);
    }
    // The months after (and between) the hand-written sessions, grown from the world (eval/grow.ts).
    const parse = (t: string, where: string): ParsedTurn => {
      const m = TURN_RE.exec(t);
      if (!m)
        throw new Error(`${b.id} ${where}: turn "${t.slice(0, 40)}" is not "A: ..." or "B#label: ...".`);
      return {
        who: m[1] as 'A' | 'B',
        fact: m[2] !== undefined,
        label: m[3] || undefined,
        text: m[4]!.trim(),
      };
    };
    const handTurns = parsedSessions.flat();
    const byLabel = new Map(handTurns.filter((t) => t.label).map((t) => [t.label!, t.text]));
    const sessionOf = new Map(
      parsedSessions.flatMap((turns, si) =>
        turns.filter((t) => t.label).map((t) => [t.label!, Date.parse(b.sessions[si]!.at)] as const),
      ),
    );
    const grown = grow(
      b,
      rand,
      handTurns.map((t) => t.text),
      b.questions.map((qb) => {
        const labelsOf = qb.evidence.split(/\s+/).filter(Boolean);
        return {
          question: qb.question,
          answer: qb.answer,
          key: (qb.key ?? qb.answer).split('|'),
          evidenceTexts: labelsOf.map((l) => byLabel.get(l) ?? ''),
          after: Math.max(...labelsOf.map((l) => sessionOf.get(l) ?? 0)),
        };
      }),
    );
    const timeline = [
      ...b.sessions.map((s, si) => ({ at: s.at, parsed: parsedSessions[si]!, grown: false })),
      ...grown.sessions
        .filter((s) => s.turns.length)
        .map((s, gi) => ({
          at: s.at,
          parsed: s.turns.map((t) => parse(t, `grown session ${gi + 1}`)),
          grown: true,
        })),
    ].sort((x, y) => Date.parse(x.at) - Date.parse(y.at));
    const allQuestions = [...b.questions, ...grown.questions];
    const sessions = timeline.map((s, si) => {
      const parsed = s.parsed;
      const n = b.fillers ?? 4;
      const atStart = 1 + Math.floor(rand() * Math.min(2, n));
      // Small talk opens a session: before its first turn when that is a question (the question then gets
      // its answer next) or when an assistant is one of the speakers (greetings, then the request), else right
      // after the greeting, by the other speaker. Closers follow the last turn, alternating.
      const first = parsed[0]!;
      const other = (w: 'A' | 'B'): 'A' | 'B' => (w === 'A' ? 'B' : 'A');
      // A grown session starts with an exchange, so its small talk always comes first.
      const before = withAssistant || s.grown || /[?？]\s*$/.test(first.text);
      const openers = Array.from({ length: atStart }, (_, i) => {
        const who = before
          ? i % 2 === atStart % 2
            ? first.who
            : other(first.who)
          : i % 2 === 0
            ? other(first.who)
            : first.who;
        return { who, fact: false, label: undefined, text: filler(who, 'open') };
      });
      let lastWho = parsed[parsed.length - 1]!.who;
      const closers = Array.from({ length: n - atStart }, () => {
        lastWho = other(lastWho);
        return { who: lastWho, fact: false, label: undefined, text: filler(lastWho, 'close') };
      });
      const turns = before
        ? [...openers, ...parsed, ...closers]
        : [first, ...openers, ...parsed.slice(1), ...closers];
      let t = Date.parse(s.at);
      if (Number.isNaN(t)) throw new Error(`${b.id} session ${si + 1}: "${s.at}" is not a time.`);
      const messages: RawMessage[] = turns.map((turn, ti) => {
        if (ti > 0) t += (12 + Math.floor(rand() * 170)) * 1000;
        const id = `${short}-s${si + 1}-t${String(ti + 1).padStart(2, '0')}`;
        if (turn.label) {
          if (labelIds.has(turn.label)) throw new Error(`${b.id}: label "${turn.label}" is used twice.`);
          labelIds.set(turn.label, id);
        }
        labels[id] = turn.fact ? 'fact' : 'junk';
        const sp = speakers[turn.who];
        return { id, role: sp.role, name: sp.name, content: turn.text, timestamp: new Date(t).toISOString() };
      });
      return { project_id: b.id, source_type: 'chat' as const, session_id: `${b.id}/s${si + 1}`, messages };
    });
    const contentOf = new Map(sessions.flatMap((x) => x.messages.map((m) => [m.id!, m.content] as const)));
    const ids = (labelsText: string | undefined, qid: string): string[] =>
      (labelsText ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((l) => {
          const id = labelIds.get(l);
          if (!id) throw new Error(`${qid}: no turn is labelled "${l}".`);
          return id;
        });
    const questions: Question[] = allQuestions.map((qb, qi) => {
      const id = `${short}-q${String(qi + 1).padStart(2, '0')}`;
      const out: Question = {
        id,
        category: qb.category,
        question: qb.question,
        answer: qb.answer,
        evidence: ids(qb.evidence, id),
        key: (qb.key ?? qb.answer).split('|'),
      };
      if (qb.supersedes) out.supersedes = ids(qb.supersedes, id);
      // Every other turn that carries the answer is recorded as a deliberate near miss: in the hand-written
      // sessions they were written as hard negatives, in the grown ones only a question's own restatements
      // may carry its answer (grow.ts draws everything else again).
      const ev = new Set([...out.evidence, ...(out.supersedes ?? [])]);
      const parts = answerParts(
        out.evidence.map((e) => contentOf.get(e) ?? ''),
        out.key,
      );
      const near = [...contentOf]
        .filter(([mid, text]) => !ev.has(mid) && carries(text, parts))
        .map(([mid]) => mid);
      if (near.length) out.near_miss = near;
      return out;
    });
    return {
      id: b.id,
      lang: b.lang,
      topic: b.topic,
      speakers: [b.a.name, b.b.name],
      sessions,
      labels,
      questions,
    };
  });
}

function main(): void {
  const convs = build([...EN1, ...EN2, ...EN3, ...ZH1, ...ZH2]);
  const problems = checkDataset(convs);
  if (problems.length) {
    for (const p of problems) console.error(`  ${p}`);
    throw new Error(`${problems.length} problems in the eval set; nothing written.`);
  }
  mkdirSync(DATA_DIR, { recursive: true });
  for (const f of readdirSync(DATA_DIR)) if (f.endsWith('.json')) rmSync(join(DATA_DIR, f));
  for (const c of convs) writeFileSync(join(DATA_DIR, `${c.id}.json`), JSON.stringify(c, null, 2) + '\n');
  console.log(JSON.stringify(describeDataset(convs), null, 2));
}

main();
