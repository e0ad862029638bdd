/**
 * The rule stage against the labelled turns of test/fixtures/rules/labelled.ts: the share of
 * fact-bearing turns it keeps, and the junk share of what it keeps (issue 17's target: at most 10%).
 * Each turn goes through the rules alone as one user message of a chat session; a turn is kept when the
 * rules make a candidate of any of its sentences (a candidate is then stored or waits for review).
 */
import { applyRules } from '../../sidecar/pipeline/rules';
import { LABELLED_TURNS, type LabelledTurn } from '../../test/fixtures/rules/labelled';

export interface RulesSetScore {
  facts: number;
  junk: number;
  /** Share of fact turns kept. */
  fact_kept: number;
  /** Share of kept turns that are junk. */
  junk_share: number;
  by_lang: Record<'en' | 'zh', { fact_kept: number; junk_share: number }>;
  /** Share kept, per kind (fact kinds should be high, junk kinds low). */
  kept_by_kind: Record<string, number>;
  missed_facts: string[];
  kept_junk: string[];
}

/** True when the rules keep something of this turn. */
export function keptByRules(text: string): boolean {
  const r = applyRules(
    [{ id: 'turn', role: 'user', content: text, timestamp: '2026-05-15T12:00:00.000Z' }],
    'chat',
  );
  return r.candidates.length > 0;
}

const share = (n: number, d: number): number => (d ? Math.round((n / d) * 1000) / 1000 : 0);

function score(turns: LabelledTurn[]): {
  fact_kept: number;
  junk_share: number;
  kept: Map<LabelledTurn, boolean>;
} {
  const kept = new Map(turns.map((t) => [t, keptByRules(t.text)] as const));
  const facts = turns.filter((t) => t.label === 'fact');
  const keptAll = turns.filter((t) => kept.get(t));
  return {
    fact_kept: share(facts.filter((t) => kept.get(t)).length, facts.length),
    junk_share: share(keptAll.filter((t) => t.label === 'junk').length, keptAll.length),
    kept,
  };
}

export function scoreRulesSet(turns: LabelledTurn[] = LABELLED_TURNS): RulesSetScore {
  const all = score(turns);
  const en = score(turns.filter((t) => t.lang === 'en'));
  const zh = score(turns.filter((t) => t.lang === 'zh'));
  const kinds = [...new Set(turns.map((t) => t.kind))];
  return {
    facts: turns.filter((t) => t.label === 'fact').length,
    junk: turns.filter((t) => t.label === 'junk').length,
    fact_kept: all.fact_kept,
    junk_share: all.junk_share,
    by_lang: {
      en: { fact_kept: en.fact_kept, junk_share: en.junk_share },
      zh: { fact_kept: zh.fact_kept, junk_share: zh.junk_share },
    },
    kept_by_kind: Object.fromEntries(
      kinds.map((k) => {
        const of = turns.filter((t) => t.kind === k);
        return [k, share(of.filter((t) => all.kept.get(t)).length, of.length)];
      }),
    ),
    missed_facts: turns.filter((t) => t.label === 'fact' && !all.kept.get(t)).map((t) => t.text),
    kept_junk: turns.filter((t) => t.label === 'junk' && all.kept.get(t)).map((t) => t.text),
  };
}
