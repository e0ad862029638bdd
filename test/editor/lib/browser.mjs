// Headless Debian Chromium driven by playwright-core (no browser download:
// executablePath points at the apt package), one fresh profile per phase.
import fs from 'node:fs';
import { format } from 'node:util';
import { withTimeout } from './processes.mjs';

export const CHROMIUM = process.env.MNEMO_EDITOR_CHROMIUM || '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
];

/**
 * Formats console arguments like Node's console.log, dropping %c styling. The
 * workbench logs ('%c INFO', 'color: #33f', fmt, ...args) — a prefix whose only
 * specifiers are %c, then the real call — and forwards the extension host's
 * console as ('%c[Extension Host] %c' + fmt, 'color: blue', 'color: ', ...args).
 */
export function formatConsoleArgs(args) {
  const [first] = args;
  if (typeof first === 'string') {
    const specs = first.match(/%[sdifjoOc]/g) ?? [];
    if (specs.length > 0 && specs.every((x) => x === '%c') && args.length > specs.length + 1) {
      const head = format(first, ...args.slice(1, 1 + specs.length)).trim();
      return `${head} ${format(...args.slice(1 + specs.length))}`;
    }
  }
  return format(...args);
}

/**
 * Launches Chromium with a fresh user-data-dir and returns
 * { context, page, close() }. `onConsole(line)` receives every console
 * message, page error and crash of the page, formatted as one line.
 */
export async function launchBrowser({ userDataDir, env, onConsole, launchTimeoutMs = 60_000 }) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run bash test/editor/setup.sh`);
  const { chromium } = await import('playwright-core');
  fs.rmSync(userDataDir, { recursive: true, force: true });
  fs.mkdirSync(userDataDir, { recursive: true });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    env,
    viewport: { width: 1440, height: 900 },
    timeout: launchTimeoutMs,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const browserPid = context.browser()?.process?.()?.pid; // undefined for persistent contexts in some versions
  context.setDefaultTimeout(30_000);
  context.setDefaultNavigationTimeout(60_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const stamp = () => new Date().toISOString();
  page.on('console', async (msg) => {
    // The workbench logs with console.log('%c INFO', 'color: ...', fmt, ...args) and forwards the
    // extension host's console the same way: format the arguments like Node would.
    const at = stamp();
    let text;
    try {
      const args = await withTimeout(Promise.all(msg.args().map((a) => a.jsonValue())), 2000, 'console args');
      text = args.length ? formatConsoleArgs(args) : msg.text();
    } catch {
      text = msg.text();
    }
    onConsole?.(`${at} [console.${msg.type()}] ${text}`);
  });
  page.on('pageerror', (err) => onConsole?.(`${stamp()} [pageerror] ${err.stack || err.message}`));
  page.on('crash', () => onConsole?.(`${stamp()} [crash] page crashed`));
  page.on('requestfailed', (req) => {
    const u = req.url();
    if (!u.startsWith('data:'))
      onConsole?.(`${stamp()} [requestfailed] ${u} ${req.failure()?.errorText ?? ''}`);
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await withTimeout(context.close(), 15_000, 'closing chromium').catch(() => {
      if (browserPid) {
        try {
          process.kill(browserPid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });
  };
  return { context, page, close };
}
