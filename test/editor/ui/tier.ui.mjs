// UI: the Memories tree says who vouches for a memory (issue 33, provenance tiers): a memory learnt from
// an assistant's turn is marked "from an agent", one from a tool result "from outside", and one from the
// person's own turn carries neither mark — in the row's description and in its screen-reader label.
import { openMemories, rowInfo, seeded, showMemory, visibleRows } from './support/mnemo.mjs';

const AGENT = 'Confirmed: the staging API listens on port 8443.';
const OWN = 'We set the build timeout to 45 minutes for the nightly job.';
const OUTSIDE = 'deploy.yml: the staging region is eu-west-1, confirmed by the deploy log.';

/** One chat session: the person asks, an assistant and a tool answer, the person states a setting. */
export const seed = [
  {
    sourceType: 'chat',
    messages: [
      { role: 'user', content: 'Which port does the staging API use?' },
      { role: 'assistant', content: AGENT },
      { role: 'user', content: OWN },
      { role: 'tool', content: OUTSIDE },
    ],
  },
];

export const tests = [
  {
    name: 'a memory from an agent or from outside is marked so in the tree; the person’s own is not',
    async run(ctx) {
      const pane = await openMemories(ctx);
      const expect = [
        [AGENT, 'from an agent'],
        [OUTSIDE, 'from outside'],
        [OWN, undefined],
      ];
      for (const [text, mark] of expect) {
        const m = seeded(ctx.seed, text);
        const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text }).catch(
          async (e) => {
            throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
          },
        );
        const info = await rowInfo(row);
        for (const where of [info.description, info.ariaLabel]) {
          if (mark && !where.includes(mark))
            throw new Error(`"${info.label}" shows "${where}", expected it to say "${mark}"`);
          if (!mark && /from an agent|from outside/.test(where))
            throw new Error(`"${info.label}" shows "${where}": the person's own words carry no tier mark`);
        }
      }
      await ctx.screenshot('tiers');
    },
  },
];
