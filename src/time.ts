/**
 * Times are stored as UTC ISO-8601. They are shown as `2026-12-01 10:43` in the display time zone
 * (`mnemo.display.timeZone`, else the system's; callers pass it in) with the UTC value on hover or
 * beside it where nothing can hover. No `vscode` import: unit-tested in test/unit/time.test.ts.
 */

function parse(iso: string | undefined): Date | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Year, month, day, hour and minute of an instant in a zone (undefined: the system's). */
function partsIn(
  d: Date,
  timeZone: string | undefined,
): Record<'year' | 'month' | 'day' | 'hour' | 'minute', string> {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(key, f);
  }
  const parts = f.formatToParts(d);
  const get = (t: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === t)?.value ?? '';
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
  };
}

/** `2026-12-01 10:43` in the zone (undefined: the system's); the input itself when it is not a time. */
export function formatLocal(iso: string | undefined, timeZone: string | undefined): string {
  const d = parse(iso);
  if (!d) return iso || '—';
  const p = partsIn(d, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** `2026-12-01 02:43 UTC` (what a hover shows beside the local time). */
export function formatUtc(iso: string | undefined): string {
  const d = parse(iso);
  if (!d) return iso || '—';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `2026-12-01 10:43 (02:43 UTC)`, or with the UTC date too when it differs; for text that cannot hover. */
export function formatLocalWithUtc(iso: string | undefined, timeZone: string | undefined): string {
  const d = parse(iso);
  if (!d) return iso || '—';
  const local = formatLocal(iso, timeZone);
  const utc = formatUtc(iso);
  return `${local} (${utc.slice(0, 10) === local.slice(0, 10) ? utc.slice(11) : utc})`;
}

/** Local calendar date (YYYY-MM-DD) in the zone; used for "once a day". */
export function localDay(date: Date, timeZone: string | undefined): string {
  const p = partsIn(date, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The zone's name, for headers ("Times in Asia/Shanghai"). */
export function zoneName(timeZone: string | undefined): string {
  return timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** One formatter for every age: constructing one costs more than formatting (the trees render hundreds). */
const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 days ago"; time-zone independent. `now` is a parameter so that callers re-render ages that stay true. */
export function relativeAge(iso: string | undefined, now = Date.now()): string {
  const d = parse(iso);
  if (!d) return '';
  const seconds = Math.round((d.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(seconds / 3600), 'hour');
  if (abs < 30 * 86_400) return rtf.format(Math.round(seconds / 86_400), 'day');
  if (abs < 365 * 86_400) return rtf.format(Math.round(seconds / (30 * 86_400)), 'month');
  return rtf.format(Math.round(seconds / (365 * 86_400)), 'year');
}

/** UTC ISO instant `days` before now (for filters; instants are zone independent). */
export function daysAgoUtc(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString();
}
