import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  daysAgoUtc,
  formatLocal,
  formatLocalWithUtc,
  formatUtc,
  localDay,
  relativeAge,
  zoneName,
} from '../../src/time';

const AT = '2026-12-01T02:43:10.500Z';

test('times read 2026-12-01 10:43 in the display zone, and 02:43 UTC on hover', () => {
  assert.equal(formatLocal(AT, 'Asia/Shanghai'), '2026-12-01 10:43');
  assert.equal(formatLocal(AT, 'America/New_York'), '2026-11-30 21:43');
  assert.equal(formatLocal(AT, 'UTC'), '2026-12-01 02:43');
  assert.equal(formatUtc(AT), '2026-12-01 02:43 UTC');
  assert.equal(
    formatLocal('2026-06-01T00:00:00Z', 'Europe/Berlin'),
    '2026-06-01 02:00',
    'summer time applies',
  );
  assert.equal(formatLocal('2026-01-01T00:05:00Z', 'UTC'), '2026-01-01 00:05', 'midnight is 00, never 24');
});

test('where nothing can hover, UTC goes beside (with its date only when it differs)', () => {
  assert.equal(formatLocalWithUtc(AT, 'Asia/Shanghai'), '2026-12-01 10:43 (02:43 UTC)');
  assert.equal(formatLocalWithUtc(AT, 'America/New_York'), '2026-11-30 21:43 (2026-12-01 02:43 UTC)');
});

test('a value that is not a time is shown as it is, an absent one as a dash', () => {
  assert.equal(formatLocal('not a date', 'UTC'), 'not a date');
  assert.equal(formatLocal(undefined, 'UTC'), '—');
  assert.equal(formatUtc(''), '—');
  assert.equal(formatLocalWithUtc(undefined, 'UTC'), '—');
  assert.equal(relativeAge(undefined), '');
});

test('"today" is the calendar day of the display zone', () => {
  const d = new Date('2025-03-01T18:30:00Z');
  assert.equal(localDay(d, 'Asia/Shanghai'), '2025-03-02');
  assert.equal(localDay(d, 'America/New_York'), '2025-03-01');
  assert.equal(zoneName('Asia/Shanghai'), 'Asia/Shanghai');
  assert.ok(zoneName(undefined).length > 0, 'the system zone has a name');
});

test('ages are relative to the given now, so a re-render keeps them true', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const ago = (ms: number) => relativeAge(new Date(now - ms).toISOString(), now);
  assert.equal(ago(10_000), 'just now');
  assert.equal(ago(2 * 60_000), '2 minutes ago');
  assert.equal(ago(3 * 3_600_000), '3 hours ago');
  assert.equal(ago(86_400_000), 'yesterday');
  assert.equal(ago(3 * 86_400_000), '3 days ago');
  assert.equal(ago(65 * 86_400_000), '2 months ago');
  assert.equal(ago(800 * 86_400_000), '2 years ago');
  assert.equal(relativeAge(new Date(now + 2 * 3_600_000).toISOString(), now), 'in 2 hours');
  const created = new Date(now - 13_000).toISOString();
  assert.equal(relativeAge(created, now), 'just now');
  assert.equal(relativeAge(created, now + 120_000), '2 minutes ago', 'the same memory two minutes later');
});

test('"the last N days" is an instant N×24 h back, independent of the zone', () => {
  assert.equal(daysAgoUtc(7, Date.parse('2026-12-08T05:00:00Z')), '2026-12-01T05:00:00.000Z');
});
