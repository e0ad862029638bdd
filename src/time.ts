/**
 * Times are stored as UTC ISO-8601; they are shown in the user's time zone (`mnemo.display.timeZone`,
 * else the system zone) with the UTC value beside.
 */
import { config } from './config';

function formatter(timeZone: string | undefined): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(undefined, {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
    timeZoneName: 'short',
  });
}

function parse(iso: string | undefined): Date | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** "2025-03-01 09:30:00 GMT+8 (2025-03-01T01:30:00Z)" */
export function formatLocalWithUtc(iso: string | undefined, timeZone = config.display.timeZone()): string {
  const d = parse(iso);
  if (!d) return iso ?? '—';
  return `${formatter(timeZone).format(d)} (${d.toISOString().replace(/\.\d{3}Z$/, 'Z')} UTC)`;
}

/** Local calendar date (YYYY-MM-DD) in the display time zone; used for "once a day". */
export function localDay(date = new Date(), timeZone = config.display.timeZone()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(date);
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** "3 days ago"; time-zone independent. */
export function relativeAge(iso: string | undefined, now = Date.now()): string {
  const d = parse(iso);
  if (!d) return '';
  const seconds = Math.round((d.getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return rtf.format(seconds, 'second');
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
