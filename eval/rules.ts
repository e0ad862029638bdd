/**
 * The rule stage alone over every turn of the eval set (issue 17: "share of fact-bearing turns kept, and
 * junk share of what is stored"), without Chroma, the model, scoring or dedup, in seconds:
 *
 *   npm run eval:rules                         # every conversation of eval/data
 *   npm run eval:rules -- --only zh-02-family-assistant --examples 20
 *   npm run eval:rules -- --data /tmp/old-data # another copy of the set (e.g. the labels of an older commit)
 *
 * Each session goes through the product's own pipeline up to the rules (`analyzeSession`: normalize, redact,
 * rules, attribution, score), as `mnemo/ingest/session` runs it. A turn is *kept* when some candidate (stored
 * or pending review) cites it. It prints, overall, per language and per keeping rule (the rule of the first
 * candidate citing the turn): fact turns kept of all fact turns, and the junk share of the kept turns, by
 * the set's turn labels; with `--examples N`, up to N kept junk turns per rule (`--of fact`: kept fact turns).
 */
import { parseArgs } from 'node:util';
import { analyzeSession } from '../sidecar/pipeline';
import { DATA_DIR, loadDataset, type Conversation } from './lib/dataset';

interface Tally {
  facts: number;
  keptFacts: number;
  kept: number;
  keptJunk: number;
}

const blank = (): Tally => ({ facts: 0, keptFacts: 0, kept: 0, keptJunk: 0 });
const share = (n: number, d: number): string => (d ? (n / d).toFixed(3) : '—');

export interface RulesRun {
  total: Tally;
  byLang: Record<string, Tally>;
  byRule: Record<string, Tally>;
  /** Kept turns per rule, by label: the junk and the facts each rule keeps. */
  examples: Record<'fact' | 'junk', Record<string, string[]>>;
  /** Ids of the kept turns, with their rule. */
  kept: Map<string, string>;
}

/** Runs every session of the set through the rules and counts kept turns against the labels. */
export async function runRules(convs: Conversation[]): Promise<RulesRun> {
  const total = blank();
  const byLang: Record<string, Tally> = {};
  const byRule: Record<string, Tally> = {};
  const examples: RulesRun['examples'] = { fact: {}, junk: {} };
  const kept = new Map<string, string>();
  for (const c of convs) {
    const lang = (byLang[c.lang] ??= blank());
    for (const s of c.sessions) {
      const r = await analyzeSession({ ...s, messages: s.messages.map((m) => ({ ...m })) });
      const ruleOf = new Map<string, string>();
      for (const cand of r.candidates)
        for (const id of cand.message_ids) if (!ruleOf.has(id)) ruleOf.set(id, cand.features?.rule ?? '?');
      for (const m of s.messages) {
        const fact = c.labels[m.id!] === 'fact';
        const rule = ruleOf.get(m.id!);
        for (const t of [total, lang]) {
          if (fact) t.facts++;
          if (rule !== undefined) {
            t.kept++;
            if (fact) t.keptFacts++;
            else t.keptJunk++;
          }
        }
        if (rule === undefined) continue;
        kept.set(m.id!, rule);
        const t = (byRule[rule] ??= blank());
        t.kept++;
        if (fact) t.keptFacts++;
        else t.keptJunk++;
        (examples[fact ? 'fact' : 'junk'][rule] ??= []).push(`${m.name}: ${m.content}`);
      }
    }
  }
  return { total, byLang, byRule, examples, kept };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      data: { type: 'string', default: DATA_DIR },
      examples: { type: 'string', default: '0' },
      of: { type: 'string', default: 'junk' },
    },
  });
  const only = values.only?.split(',').map((s) => s.trim());
  const convs = loadDataset(values.data).filter((c) => !only || only.includes(c.id));
  if (!convs.length) throw new Error(`No conversation matches --only ${values.only ?? ''}.`);
  const run = await runRules(convs);
  const line = (name: string, t: Tally): string =>
    `${name.padEnd(18)} facts kept ${String(t.keptFacts).padStart(5)} / ${String(t.facts).padStart(5)} = ${share(t.keptFacts, t.facts)}   ` +
    `junk ${String(t.keptJunk).padStart(5)} / ${String(t.kept).padStart(5)} kept = ${share(t.keptJunk, t.kept)}`;
  console.log(`${convs.length} conversations, the rules alone (labels from ${values.data})`);
  console.log(line('all', run.total));
  for (const [lang, t] of Object.entries(run.byLang)) console.log(line(lang, t));
  console.log('per keeping rule (junk / kept turns):');
  for (const [rule, t] of Object.entries(run.byRule).sort((a, b) => b[1].keptJunk - a[1].keptJunk))
    console.log(`  ${rule.padEnd(18)} ${String(t.keptJunk).padStart(5)} / ${String(t.kept).padStart(5)}`);
  const n = Number(values.examples);
  if (n > 0)
    for (const [rule, lines] of Object.entries(run.examples[values.of === 'fact' ? 'fact' : 'junk'])) {
      console.log(`\nkept ${values.of === 'fact' ? 'fact' : 'junk'} turns, ${rule}:`);
      for (let i = 0; i < Math.min(n, lines.length); i++)
        console.log(`  ${lines[Math.floor((i * lines.length) / Math.min(n, lines.length))]}`);
    }
}

if (require.main === module)
  void main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
