/**
 * When something happened: relative times in a message ("yesterday", "last summer", "next month",
 * "昨天", "上周", "去年夏天") resolved against the message's own time to an absolute date or range, so a
 * memory or an episode can say "2023-05-07" instead of "yesterday" long after the conversation.
 *
 * chrono-node parses the English and most Chinese day-level expressions; the tables below add what it
 * does not know (seasons, Chinese week/month/year units, bare years) and turn unit phrases ("last week",
 * "next month") into the whole unit's range. Pure: no I/O; dates are UTC calendar dates.
 */
import * as chrono from 'chrono-node';

export type Granularity = 'day' | 'week' | 'weekend' | 'month' | 'season' | 'year';

export interface ResolvedTime {
  /** The words in the message, e.g. "last summer". */
  text: string;
  /** First and last day of the range, `YYYY-MM-DD` (equal for a single day). */
  start: string;
  end: string;
  granularity: Granularity;
}

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const utcDay = (y: number, m: number, d: number): number => Date.UTC(y, m, d);
const startOfDay = (ms: number): number => Math.floor(ms / DAY) * DAY;

/** Monday..Sunday of the ISO week holding `ms`. */
function weekOf(ms: number): [number, number] {
  const day = startOfDay(ms);
  const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return [day - dow * DAY, day + (6 - dow) * DAY];
}
function monthOf(ms: number): [number, number] {
  const d = new Date(ms);
  return [
    utcDay(d.getUTCFullYear(), d.getUTCMonth(), 1),
    utcDay(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - DAY,
  ];
}
const yearRange = (y: number): [number, number] => [utcDay(y, 0, 1), utcDay(y + 1, 0, 1) - DAY];

type Season = 'spring' | 'summer' | 'autumn' | 'winter';
/** Meteorological seasons (northern hemisphere): the winter of year Y runs from December Y to February Y+1. */
const SEASON_START: Record<Season, number> = { spring: 2, summer: 5, autumn: 8, winter: 11 };
const seasonRange = (s: Season, y: number): [number, number] => {
  const m = SEASON_START[s];
  return [utcDay(y, m, 1), utcDay(y, m + 3, 1) - DAY];
};

/** English and Chinese season words. */
const SEASON_WORDS: Record<string, Season> = {
  spring: 'spring',
  summer: 'summer',
  autumn: 'autumn',
  fall: 'autumn',
  winter: 'winter',
  春天: 'spring',
  春季: 'spring',
  夏天: 'summer',
  夏季: 'summer',
  秋天: 'autumn',
  秋季: 'autumn',
  冬天: 'winter',
  冬季: 'winter',
};

/** Chinese year words: offset from the reference year. */
const ZH_YEAR: Record<string, number> = { 前年: -2, 去年: -1, 今年: 0, 明年: 1, 后年: 2 };
/** Chinese relative units: 上/这/本/下 + 周/星期/个星期/月/个月. */
const ZH_REL: Record<string, number> = { 上: -1, 上个: -1, 这: 0, 这个: 0, 本: 0, 下: 1, 下个: 1 };

/** Holidays on a fixed calendar date: month (0-based), first and last day. */
interface Holiday {
  month: number;
  first: number;
  last: number;
}
const HOLIDAYS: Record<string, Holiday> = {
  'christmas eve': { month: 11, first: 24, last: 24 },
  christmas: { month: 11, first: 25, last: 25 },
  xmas: { month: 11, first: 25, last: 25 },
  "new year's eve": { month: 11, first: 31, last: 31 },
  "new year's day": { month: 0, first: 1, last: 1 },
  halloween: { month: 9, first: 31, last: 31 },
  "valentine's day": { month: 1, first: 14, last: 14 },
  平安夜: { month: 11, first: 24, last: 24 },
  圣诞节: { month: 11, first: 25, last: 25 },
  圣诞: { month: 11, first: 25, last: 25 },
  跨年: { month: 11, first: 31, last: 31 },
  元旦: { month: 0, first: 1, last: 1 },
  万圣节: { month: 9, first: 31, last: 31 },
  情人节: { month: 1, first: 14, last: 14 },
  国庆节: { month: 9, first: 1, last: 7 },
  国庆: { month: 9, first: 1, last: 7 },
};
const EN_HOLIDAY = "christmas eve|christmas|xmas|new year's eve|new year's day|halloween|valentine's day";
const ZH_HOLIDAY = '平安夜|圣诞节|圣诞|跨年|元旦|万圣节|情人节|国庆节|国庆';
const holidayIn = (h: Holiday, y: number): [number, number] => [
  utcDay(y, h.month, h.first),
  utcDay(y, h.month, h.last),
];
/** The holiday nearest the reference ("for Christmas" said on 29 December is that Christmas), or the last or next one. */
function holidayNear(h: Holiday, ref: number, which?: 'last' | 'this' | 'next'): [number, number] {
  const y = new Date(ref).getUTCFullYear();
  const all = [y - 1, y, y + 1].map((yy) => holidayIn(h, yy));
  const today = startOfDay(ref);
  if (which === 'last') return all.filter(([, end]) => end < today).pop()!;
  if (which === 'next') return all.find(([start]) => start > today)!;
  if (which === 'this') return all[1]!;
  const gap = ([start, end]: [number, number]) =>
    today < start ? start - today : today > end ? today - end : 0;
  return all.reduce((a, b) => (gap(b) < gap(a) ? b : a));
}

/** Words for "the moment of speaking": true of every message, so they date nothing. */
const DEICTIC_NOW = /^(现在|目前|当前|此刻|刚才|刚刚|now|right now|just now|currently|at the moment)$/i;

interface Span extends ResolvedTime {
  index: number;
}

function season(ref: number, which: 'last' | 'this' | 'next', s: Season): [number, number] {
  const y = new Date(ref).getUTCFullYear();
  // candidates around the reference year, in order
  const all = [y - 2, y - 1, y, y + 1].map((yy) => seasonRange(s, yy));
  if (which === 'last') return all.filter(([, end]) => end < startOfDay(ref)).pop()!;
  if (which === 'next') return all.find(([start]) => start > ref)!;
  return all.find(([start, end]) => start <= ref && ref <= end + DAY) ?? all.find(([start]) => start > ref)!;
}

/** The expressions chrono-node does not resolve (or resolves to one day where a range is meant). */
function tableSpans(text: string, ref: number): Span[] {
  const spans: Span[] = [];
  const push = (m: RegExpExecArray, [s, e]: [number, number], granularity: Granularity) =>
    spans.push({ text: m[0], index: m.index, start: iso(s), end: iso(e), granularity });
  const y = new Date(ref).getUTCFullYear();
  let m: RegExpExecArray | null;

  // "last summer", "this winter", "next spring"
  const enSeason = /\b(last|this|next|past)\s+(spring|summer|autumn|fall|winter)\b/gi;
  while ((m = enSeason.exec(text))) {
    const which = m[1].toLowerCase() === 'past' ? 'last' : (m[1].toLowerCase() as 'last' | 'this' | 'next');
    push(m, season(ref, which, SEASON_WORDS[m[2].toLowerCase()]), 'season');
  }
  // "in the summer of 2021", "summer 2021"
  const enSeasonYear = /\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d\d)\b/gi;
  while ((m = enSeasonYear.exec(text)))
    push(m, seasonRange(SEASON_WORDS[m[1].toLowerCase()], Number(m[2])), 'season');
  // 去年夏天, 今年冬天, 明年春季
  const zhSeason = /(前年|去年|今年|明年|后年)(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)/g;
  while ((m = zhSeason.exec(text))) push(m, seasonRange(SEASON_WORDS[m[2]], y + ZH_YEAR[m[1]]), 'season');
  // 去年, 今年, 明年 (not followed by a season, month or day, which are more precise)
  const zhYear = new RegExp(
    `(前年|去年|今年|明年|后年)(?![春夏秋冬]|\\d|[一二三四五六七八九十]+月|的?(?:${ZH_HOLIDAY}))`,
    'g',
  );
  while ((m = zhYear.exec(text))) push(m, yearRange(y + ZH_YEAR[m[1]]), 'year');
  // 2022年 (alone), "in 2022"
  const zhBareYear = new RegExp(
    `((?:19|20)\\d\\d)年(?!\\d|[一二三四五六七八九十]+月|的?(?:${ZH_HOLIDAY}))`,
    'g',
  );
  while ((m = zhBareYear.exec(text))) push(m, yearRange(Number(m[1])), 'year');
  const enBareYear = /\b(?:in|during|since|back in)\s+((?:19|20)\d\d)\b(?!\s*[-/])/gi;
  while ((m = enBareYear.exec(text))) push(m, yearRange(Number(m[1])), 'year');
  // "Christmas 2025", "last Christmas", "for Christmas" (the nearest), "2025 年圣诞节", "去年国庆"
  const enHoliday = new RegExp(
    `\\b(?:(last|this|next)\\s+)?(${EN_HOLIDAY})(?:\\s+(?:of\\s+)?((?:19|20)\\d\\d))?(?![\\w'])`,
    'gi',
  );
  while ((m = enHoliday.exec(text))) {
    const h = HOLIDAYS[m[2].toLowerCase()]!;
    const which = m[1]?.toLowerCase() as 'last' | 'this' | 'next' | undefined;
    push(m, m[3] ? holidayIn(h, Number(m[3])) : holidayNear(h, ref, which), 'day');
  }
  const zhHoliday = new RegExp(
    `(?:((?:19|20)\\d\\d)\\s*年的?|(前年|去年|今年|明年|后年)的?)?(${ZH_HOLIDAY})`,
    'g',
  );
  while ((m = zhHoliday.exec(text))) {
    const h = HOLIDAYS[m[3]]!;
    const year = m[1] ? Number(m[1]) : m[2] ? y + ZH_YEAR[m[2]]! : undefined;
    push(m, year !== undefined ? holidayIn(h, year) : holidayNear(h, ref), 'day');
  }
  // 上周, 这周, 下星期, 上个星期, 上周末, 本周
  const zhWeek = /(上个|这个|下个|上|这|本|下)(周末|周|星期|礼拜)(?![一二三四五六日天1-7])/g;
  while ((m = zhWeek.exec(text))) {
    const [mon, sun] = weekOf(ref + ZH_REL[m[1]] * 7 * DAY);
    if (m[2] === '周末') push(m, [sun - DAY, sun], 'weekend');
    else push(m, [mon, sun], 'week');
  }
  // 上个月, 这个月, 本月, 下个月, 上月; with a day of that month: 上个月 28 号, 下个月十五号, 上月二十八日
  const zhMonth = /(上个|这个|下个|上|本|下)月(?:\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[号日])?/g;
  while ((m = zhMonth.exec(text))) {
    const d = new Date(ref);
    const first = utcDay(d.getUTCFullYear(), d.getUTCMonth() + ZH_REL[m[1]], 1);
    const day = m[2] ? dayOfMonth(m[2]) : undefined;
    const [start, end] = monthOf(first);
    if (day !== undefined && first + (day - 1) * DAY <= end) {
      push(m, [first + (day - 1) * DAY, first + (day - 1) * DAY], 'day');
    } else {
      // no day, or one the month does not have ("下个月 31 号" in June): the month, never a guessed day
      const words = /^(上个|这个|下个|上|本|下)月/.exec(m[0])!;
      spans.push({ text: words[0], index: m.index, start: iso(start), end: iso(end), granularity: 'month' });
    }
  }
  return spans;
}

const ZH_DIGIT: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
/** A day of the month, 1..31, in digits or Chinese numerals (八, 十五, 二十八, 三十一); else undefined. */
function dayOfMonth(s: string): number | undefined {
  let n: number | undefined;
  if (/^\d+$/.test(s)) n = Number(s);
  else {
    const m = /^([一二三])?(十)?([一二三四五六七八九])?$/.exec(s);
    if (m && (m[2] || (!m[1] && m[3])))
      n = m[2] ? (m[1] ? ZH_DIGIT[m[1]] : 1) * 10 + (m[3] ? ZH_DIGIT[m[3]] : 0) : ZH_DIGIT[m[3]];
  }
  return n !== undefined && n >= 1 && n <= 31 ? n : undefined;
}

/** Granularity of a chrono-node result, from its words: a unit phrase means the whole unit. */
function chronoSpan(r: chrono.ParsedResult): Span {
  const t = r.text.toLowerCase();
  const at = r.start.date().getTime();
  const weekday =
    /(mon|tues|wednes|thurs|fri|satur|sun)day|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]/.test(
      t,
    );
  let range: [number, number];
  let granularity: Granularity;
  if (/weekend|周末/.test(t)) {
    const [, sun] = weekOf(at);
    [range, granularity] = [[sun - DAY, sun], 'weekend'];
  } else if (/\bweeks?\b|周|星期|礼拜/.test(t) && !weekday) {
    [range, granularity] = [weekOf(at), 'week'];
  } else if (/\bmonths?\b|个?月[前后後]/.test(t) && !r.start.isCertain('day')) {
    [range, granularity] = [monthOf(at), 'month'];
  } else if (/\byears?\b|年[前后後]/.test(t) && !r.start.isCertain('month')) {
    [range, granularity] = [yearRange(new Date(at).getUTCFullYear()), 'year'];
  } else if (
    !r.start.isCertain('day') &&
    r.start.isCertain('month') &&
    !weekday &&
    !/\bago\b|前|后|後/.test(t)
  ) {
    [range, granularity] = [monthOf(at), 'month']; // "in May"
  } else {
    const end = r.end ? startOfDay(r.end.date().getTime()) : startOfDay(at);
    [range, granularity] = [[startOfDay(at), end], 'day'];
  }
  return { text: r.text, index: r.index, start: iso(range[0]), end: iso(range[1]), granularity };
}

/**
 * Every relative or absolute time in `text`, resolved against `reference` (the message's time), in the
 * order they appear. Times without a date ("at 3 pm") and bare numbers are not dates and are left out.
 */
export function resolveTimes(text: string, reference: Date): ResolvedTime[] {
  const ref = reference.getTime();
  if (!Number.isFinite(ref) || !text) return [];
  const spans = tableSpans(text, ref);
  const taken = (s: { index: number; text: string }) =>
    spans.some((o) => s.index < o.index + o.text.length && o.index < s.index + s.text.length);
  const refObj = { instant: reference, timezone: 0 };
  const parsed = [...chrono.casual.parse(text, refObj), ...chrono.zh.hans.parse(text, refObj)];
  for (const r of parsed) {
    if (DEICTIC_NOW.test(r.text.trim())) continue;
    // a date needs a day, a month, a weekday or a relative word: "at 3pm", "5" alone are not dates
    if (
      !r.start.isCertain('day') &&
      !r.start.isCertain('month') &&
      !r.start.isCertain('weekday') &&
      !/ago|last|next|this|前|后|後|上|下|这|本/i.test(r.text)
    )
      continue;
    const s = chronoSpan(r);
    if (!taken(s)) spans.push(s);
  }
  return spans
    .sort((a, b) => a.index - b.index)
    .map(({ text: t, start, end, granularity }) => ({ text: t, start, end, granularity }));
}

/** A short human form for the injection block: "2023-05-07", "2022-06-01..2022-08-31". */
export function formatTime(t: ResolvedTime): string {
  return t.start === t.end ? t.start : `${t.start}..${t.end}`;
}
