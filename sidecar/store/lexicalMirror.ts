/**
 * The lexical index as the stores keep it beside Chroma (memories and episodes; store/lexical/lexical.ts is the
 * index itself): written in step with every write and delete, read by recall for the projects and facts of
 * ids and, while it is known to hold every memory, to list a whole scope. Never throws: the index is
 * derived data, rebuilt from Chroma at start (recall/lexicalSync.ts).
 */
import type { Indexed, LazyLexical, LexicalDoc } from './lexical/lexical';

/**
 * How often recall checks that the lexical index holds every memory of the store (its count against
 * Chroma's), before a scope is listed from it (store/nearest.ts, "listed").
 */
const LISTING_CHECK_MS = 5_000;

export class LexicalMirror {
  private lazy: LazyLexical | undefined;
  /** Whether the index was last found to hold every memory ({@link trusted}). */
  private listing: { ok: boolean; at: number; checking?: Promise<void> } = { ok: false, at: 0 };

  constructor(
    /** How many memories the active collection holds (undefined: none active, or it changed meanwhile). */
    private readonly countInChroma: () => Promise<number | undefined>,
  ) {}

  /** Keeps the lexical index in step with every write and delete of the stores. */
  attach(lexical: LazyLexical): void {
    this.lazy = lexical;
  }

  /** The index itself (recall's and search's lexical channel), when attached. */
  get index(): LazyLexical | undefined {
    return this.lazy;
  }

  /** Adds documents. */
  async add(docs: LexicalDoc[]): Promise<void> {
    if (docs.length) await this.lazy?.run('index documents', (ix) => ix.upsert(docs), undefined);
  }

  /** Removes documents. */
  async remove(ids: string[]): Promise<void> {
    if (ids.length) await this.lazy?.run('remove documents', (ix) => ix.remove(ids), undefined);
  }

  /** Removes every row of a project (memories and episodes) and compacts the index file. */
  async removeProject(project: string): Promise<number> {
    const n = await this.lazy?.run('remove a project', (ix) => ix.removeProject(project), 0);
    await this.compact();
    return n ?? 0;
  }

  /** Rewrites the index file so deleted words are gone from disk (erasure). */
  async compact(): Promise<void> {
    await this.lazy?.run('compact the index', (ix) => ix.compact(), undefined);
  }

  /**
   * Moves documents to their current project (promotion) and writes their facts when given (a status
   * change, decay); returns how many moved.
   */
  async move(docs: { id: string; project: string; facts?: LexicalDoc['facts'] }[]): Promise<number> {
    if (!docs.length) return 0;
    return (await this.lazy?.run('move documents', (ix) => ix.setProjects(docs), 0)) ?? 0;
  }

  /**
   * The project and facts (with `projects`: only for ids of those projects) of each of these ids as the
   * index knows them (ids it lacks are left out; all of them when the index is off): recall filters and
   * ranks the vector channels' neighbours with them and reads from Chroma only what it answers with.
   */
  async indexed(ids: string[], projects?: readonly string[]): Promise<Map<string, Indexed>> {
    if (!ids.length || !this.lazy) return new Map();
    return this.lazy.run('read projects', (ix) => ix.indexed(ids, projects), new Map<string, Indexed>());
  }

  /** The memories of these projects as the index lists them, when at most `max` (recall's listed step). */
  async members(
    projects: readonly string[],
    max: number,
  ): Promise<Map<string, Indexed> | 'too-many' | undefined> {
    if (!this.lazy) return undefined;
    return this.lazy.run(
      'list a scope',
      async (ix): Promise<Map<string, Indexed> | 'too-many'> =>
        (await ix.members('memory', projects, max)) ?? 'too-many',
      undefined,
    );
  }

  /**
   * Whether a scope may be listed from the index: only while it holds as many memories as Chroma does. A
   * memory whose index write failed (a lock held too long, a full disk; here or in another process), or one
   * written before the start's check caught up, is then in Chroma alone, and a listed query would never
   * see it. Checked in the background at most every {@link LISTING_CHECK_MS}; until the first check
   * answers, nothing is listed.
   */
  trusted(): boolean {
    if (Date.now() - this.listing.at >= LISTING_CHECK_MS && !this.listing.checking) {
      this.listing.checking = this.checkListing()
        .catch(() => {
          this.listing.ok = false;
          this.listing.at = Date.now();
        })
        .finally(() => {
          this.listing.checking = undefined;
        });
    }
    return this.listing.ok;
  }

  private async checkListing(): Promise<void> {
    const lazy = this.lazy;
    if (!lazy) {
      this.listing = { ok: false, at: Date.now() };
      return;
    }
    const [inChroma, inIndex] = await Promise.all([
      this.countInChroma(),
      lazy.run('count memories', (ix) => ix.count('memory'), -1),
    ]);
    this.listing = { ok: inChroma !== undefined && inChroma === inIndex, at: Date.now() };
  }
}
