/**
 * Stage 2: redact. Secrets and personal data become typed placeholders (`[REDACTED:github-token]`)
 * before anything is scored, stored or shown (docs/design.md, What is not a memory: passwords, keys, ID numbers,
 * phone numbers, bank cards, API keys). Credentials are found by secretlint's recommended preset
 * plus our own rules for what it does not cover; personal data (Chinese resident ID numbers with the
 * GB 11643 checksum, mobile numbers, Luhn-valid bank cards, e-mail addresses) by our rules only.
 *
 * Every pattern is linear-time: repetitions are bounded or start only at a token boundary, so a
 * 1 MB message costs milliseconds, never a catastrophic backtrack. Pure: no I/O.
 */
import { eventLoopTurn, Slices } from '../util/slices';
import type { RawMessage, RedactionFinding, SessionInput } from './types';

export type { RedactionFinding };

export interface RedactResult {
  text: string;
  /** Kinds replaced and how often, in order of first appearance. Never the secrets themselves. */
  findings: RedactionFinding[];
}

/** A region to replace. Higher priority wins the type when regions overlap; the union is replaced. */
interface Span {
  start: number;
  end: number;
  type: string;
  priority: number;
}

const PLACEHOLDER_PREFIX = '[REDACTED:';

export function placeholder(type: string): string {
  return `${PLACEHOLDER_PREFIX}${type}]`;
}

// --- checksums ---------------------------------------------------------------------------------

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** GB 11643-1999 check character for the first 17 digits of a resident ID number. */
export function cnIdCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * ID_WEIGHTS[i]!;
  return ID_CHECK[sum % 11]!;
}

/** 18-character Chinese resident ID number with a real birth date and a valid checksum. */
export function isValidCnId(id: string): boolean {
  if (!/^[1-9]\d{16}[\dXx]$/.test(id)) return false;
  const y = Number(id.slice(6, 10));
  const m = Number(id.slice(10, 12));
  const d = Number(id.slice(12, 14));
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return false;
  if (y < 1900 || y > 2100) return false;
  return cnIdCheckChar(id.slice(0, 17)) === id[17]!.toUpperCase();
}

/** Luhn (mod 10) check over a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let n = digits.charCodeAt(i) - 48;
    if (n < 0 || n > 9) return false;
    if (double) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

// --- our rules ---------------------------------------------------------------------------------

/** One regex rule. `group` selects the part to replace (default: the whole match). */
interface RegexRule {
  type: string;
  re: RegExp;
  priority: number;
  group?: number;
  /** Extra validation of the match (checksums, look-alike filters). */
  accept?: (m: RegExpExecArray, text: string) => boolean;
}

const P_TOKEN = 3; // a known credential format
const P_ASSIGN = 2; // a value assigned to a secret-looking name
const P_PII = 1; // personal data

/** Values that are references or placeholders for a secret, not the secret. */
function isReferenceValue(v: string): boolean {
  const s = v.replace(/^["'`]|["'`]$/g, '');
  if (s.length === 0) return true;
  if (s.startsWith(PLACEHOLDER_PREFIX)) return true;
  if (/^\$\{?[A-Za-z_]/.test(s) || /^%[A-Za-z_]+%$/.test(s)) return true; // $VAR, ${VAR}, %VAR%
  if (/^<[^>]*>$/.test(s) || /^\{\{?[^}]*\}\}?$/.test(s)) return true; // <your-token>, {{ secret }}
  if (/^(?:process\.env|os\.environ|env\.|getenv|secrets\.|vault:)/i.test(s)) return true;
  if (/^(?:null|none|nil|undefined|true|false|empty|required|optional|string|str|\*+|\.\.\.|…)$/i.test(s))
    return true;
  return false;
}

/** True when the command named by `command` appears earlier on the same line (at most 300 characters back). */
function commandBefore(text: string, at: number, command: RegExp): boolean {
  const lineStart = Math.max(text.lastIndexOf('\n', at - 1) + 1, at - 300);
  return command.test(text.slice(lineStart, at));
}

/** Words that follow "password is" in ordinary prose ("the password is required"): not a secret. */
const NOT_A_PASSWORD = new Set(
  (
    'required needed necessary optional correct incorrect wrong invalid valid expired empty blank missing set unset ' +
    'stored saved kept changed reset rotated hashed encrypted hidden masked shown visible same different weak strong ' +
    'long short too very not never always only also still already being getting case sensitive protected managed ' +
    'generated known unknown secret private public mandatory enforced disabled enabled locked unlocked the your my our their ' +
    'this that here there what which where used'
  ).split(' '),
);

/**
 * A run of words after "passphrase:" / "passphrase is" that reads like a passphrase, not like a sentence
 * about passwords. After `:` or `=` the words are a value whatever they are ("correct horse battery
 * staple"); after "is" it takes three words or more ("is marshmallow today" is one word and prose), and an
ordinary first word ("is required when …") means prose.
 */
function isPassphrase(words: string, assigned: boolean): boolean {
  const parts = words.toLowerCase().split(/[ -]/);
  if (!assigned && NOT_A_PASSWORD.has(parts[0]!)) return false;
  return (
    parts.length >= (assigned ? 2 : 3) &&
    !parts.some((w) =>
      /^(?:is|are|was|for|to|of|and|the|in|on|when|if|via|with|by|must|should|will|can)$/.test(w),
    )
  );
}

/** The words in a name that say its value is a secret (API_KEY, client_secret, SESSION_SECRET, …). */
const SECRET_NAME = String.raw`token|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key|signing[_-]?key|password|passwd`;

const VALUE =
  String.raw`("[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'` +
  '`' +
  String.raw`,;，。；、）)\]}\u3400-\u9fff]{1,256})`;

const RULES: RegexRule[] = [
  // AWS access key id (AKIA long-term, ASIA temporary, ...).
  {
    type: 'aws-access-key-id',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  // AWS secret access key: 40 base64 chars, only next to a name that says so.
  {
    type: 'aws-secret-access-key',
    priority: P_TOKEN,
    group: 1,
    re: /(?<![A-Za-z0-9_])(?:aws_?secret_?access_?key|aws_?secret(?:_?key)?|secret_?access_?key|SecretAccessKey|aws secret(?: access)?(?: key)?)["']?\s{0,3}(?:[:=]|=>|is)?\s{0,3}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
  },
  // GitHub tokens: classic/OAuth/user/server/refresh, fine-grained PATs.
  {
    type: 'github-token',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])/g,
  },
  {
    type: 'github-token',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_])/g,
  },
  // OpenAI (sk-..., sk-proj-..., sk-svcacct-...) and Anthropic (sk-ant-...) style keys; needs a digit.
  {
    type: 'openai-key',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,250}\d)[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_-])/g,
    accept: (m) => !m[0].startsWith('sk-ant-'),
  },
  {
    type: 'anthropic-key',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_-])/g,
  },
  // GLM / Zhipu (智谱) API key: <32 hex>.<16 alnum>.
  {
    type: 'glm-api-key',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9])[0-9a-f]{32}\.[A-Za-z0-9]{16}(?![A-Za-z0-9])/gi,
  },
  // Slack tokens and webhooks.
  {
    type: 'slack-token',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
  },
  {
    type: 'slack-token',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9])xapp-\d-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
  },
  {
    type: 'slack-webhook',
    priority: P_TOKEN,
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{8,300}/g,
  },
  // Google API key.
  {
    type: 'google-api-key',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
  },
  // JSON Web Token (header and payload are base64url JSON: "eyJ").
  {
    type: 'jwt',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}/g,
  },
  // npm access token (secretlint has it too; cheap to keep in the sync path).
  { type: 'npm-token', priority: P_TOKEN, re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g },
  // Stripe secret and restricted keys, bare (sk_live_…, rk_live_…, sk_test_…).
  {
    type: 'stripe-key',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9_])/g,
  },
  // Hugging Face access tokens, bare (hf_ + 30-40 letters/digits, mixed case).
  {
    type: 'huggingface-token',
    priority: P_TOKEN,
    re: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])/g,
    accept: (m) => /[A-Z]/.test(m[0]) && /[a-z]/.test(m[0].slice(3)),
  },
  // Azure connection strings: AccountKey=…, SharedAccessKey=…, SharedAccessSignature sig=….
  {
    type: 'azure-key',
    priority: P_TOKEN,
    group: 1,
    re: /\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=([A-Za-z0-9+/%]{16,512}={0,2})/g,
  },
  // HTTP Basic credentials: "Authorization: Basic dXNlcjpwdw==".
  {
    type: 'basic-auth',
    priority: P_TOKEN,
    group: 1,
    re: /\bBasic\s{1,4}([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])/g,
  },
  // A password glued to a client's -p flag: mysql -pSecret, mysqldump -uroot -p'Secret'.
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: /(?<=\s)-p("[^"\n]{1,128}"|'[^'\n]{1,128}'|[^\s"'|;&]{1,128})/g,
    accept: (m, text) =>
      commandBefore(
        text,
        m.index,
        /\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mariadb|mariadb-dump)\b/,
      ) && !isReferenceValue(m[1]!),
  },
  // user:password after curl's or wget's user flag: curl -u user:pw, --user=user:pw.
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: /(?<=\s)(?:-u|--user|--http-user)(?:\s{1,3}|=)["']?[^\s:"']{1,128}:([^\s"']{1,256})/g,
    accept: (m, text) => commandBefore(text, m.index, /\b(?:curl|wget)\b/) && !isReferenceValue(m[1]!),
  },
  // Bearer tokens in headers.
  {
    type: 'bearer-token',
    priority: P_ASSIGN,
    group: 1,
    re: /\bBearer\s{1,4}([A-Za-z0-9._~+/-]{16,4096}=*)/g,
  },
  // scheme://user:password@host -> keep user and host.
  {
    type: 'url-password',
    priority: P_TOKEN,
    group: 1,
    // The user may be empty: redis://:password@host.
    re: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/?#@'"]{0,128}:([^\s/?#@'"]{1,256})@[^\s/?#@'"]{1,253}/g,
    accept: (m) => !isReferenceValue(m[1]!),
  },
  // password=..., passwd: ..., pwd=..., "password": "...", 密码: ..., 密码是...
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9_])(?:[A-Za-z0-9]{1,30}[_.-])?(?:password|passwd|passphrase|pwd|pass)["']?\s{0,3}(?:[:=]|=>)\s{0,3}` +
        VALUE,
      'gi',
    ),
    accept: (m) => !isReferenceValue(m[1]!),
  },
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: new RegExp(
      String.raw`(?:密码|口令|登录密码|密钥口令)\s{0,3}(?:[:：=]|是|为|改成|改为|设为)\s{0,3}` + VALUE,
      'g',
    ),
    accept: (m) => !isReferenceValue(m[1]!),
  },
  // A passphrase is words: "passphrase: correct horse battery staple", "口令是 tiger lily" — all of them go.
  {
    type: 'password',
    priority: P_ASSIGN + 1,
    group: 1,
    re: /\b(?:passphrase|pass phrase|password|passwd|pwd)["']?\s{0,3}(?:[:=]|is|was)\s{0,3}["']?([a-z][a-z0-9]{2,63}(?:[ -][a-z][a-z0-9]{1,63}){1,7})/gi,
    accept: (m) => isPassphrase(m[1]!, /[:=]/.test(m[0].slice(0, m[0].length - m[1]!.length))),
  },
  // An unquoted passphrase assigned to a secret's name: SESSION_SECRET=correct horse battery staple. The
  // value rule below stops at the first space (and takes no plain word); here the whole run of words goes.
  {
    type: 'secret-assignment',
    priority: P_ASSIGN + 1,
    group: 1,
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9_.-])(?:export\s{1,4})?[A-Za-z0-9_.-]{0,40}?(?:${SECRET_NAME})[A-Za-z0-9_]{0,20}\s{0,3}[:=]\s{0,3}` +
        String.raw`([a-z][a-z0-9]{2,63}(?:[ -][a-z][a-z0-9]{1,63}){1,7})(?![A-Za-z0-9])`,
      'gi',
    ),
    // Three words or more, not prose; max_tokens: eight hundred is a count.
    accept: (m) =>
      !/tokens[A-Za-z0-9_]*\s*[:=]/i.test(m[0]) &&
      m[1]!.split(/[ -]/).length >= 3 &&
      isPassphrase(m[1]!, true),
  },
  // "the password is sunshine": one lowercase word, unless it is an ordinary word about passwords.
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: /\b(?:password|passphrase)\s{1,3}(?:is|was)\s{1,3}["']?([a-z][a-z]{3,63})(?![A-Za-z0-9])/gi,
    accept: (m) => !NOT_A_PASSWORD.has(m[1]!.toLowerCase()),
  },
  // "the password is hunter2" (value must not look like an ordinary word).
  {
    type: 'password',
    priority: P_ASSIGN,
    group: 1,
    re: /\bpassword\s{1,3}(?:is|was)\s{1,3}["']?([^\s"',;]{4,128})/gi,
    accept: (m) => /[\d\W_]/.test(m[1]!) && !isReferenceValue(m[1]!),
  },
  // export FOO_TOKEN=..., API_KEY: ..., client_secret = "...", "access_token": "..."
  {
    type: 'secret-assignment',
    priority: P_ASSIGN,
    group: 1,
    re: new RegExp(
      String.raw`(?<![A-Za-z0-9_.-])(?:export\s{1,4})?[A-Za-z0-9_.-]{0,40}?(?:${SECRET_NAME})[A-Za-z0-9_]{0,20}["']?\s{0,3}(?:[:=]|=>)\s{0,3}` +
        VALUE,
      'gi',
    ),
    accept: (m) => {
      const name = m[0].slice(0, m[0].length - m[1]!.length).toLowerCase();
      const v = m[1]!.replace(/^["']|["']$/g, '');
      if (isReferenceValue(v)) return false;
      const isPassword = /pass(?:word|wd)/.test(name);
      if (isPassword) return v.length >= 3;
      // max_tokens: 800, token_limit=4096, tokens=12: counts, not secrets.
      if (/^\d{1,7}$/.test(v)) return false;
      if (/^(?:[a-z]+)$/.test(v) && v.length < 12) return false; // token=bearer, secret=none-ish words
      return v.length >= 6;
    },
  },
  // Chinese resident ID number (GB 11643 checksum).
  {
    type: 'cn-id-number',
    priority: P_PII,
    re: /(?<![A-Za-z0-9_-])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![A-Za-z0-9_])/g,
    accept: (m) => isValidCnId(m[0]),
  },
  // Chinese mobile number, optional +86 / 0086 / 86, optional separators 3-4-4.
  {
    type: 'cn-mobile',
    priority: P_PII,
    re: /(?<![A-Za-z0-9_+.-])(?:(?:\+|00)?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?![A-Za-z0-9_]|[.-]\d)/g,
    accept: (m) => {
      const digits = m[0].replace(/\D/g, '');
      const local = digits.slice(-11);
      if (!/^1[3-9]\d{9}$/.test(local)) return false;
      // A separator must split 3-4-4 consistently; otherwise it is probably two numbers.
      const seps = m[0].replace(/^(?:\+|00)?86[\s-]?/, '').match(/[\s-]/g);
      return !seps || seps.length === 2;
    },
  },
  // Bank card: 13-19 digits, optionally grouped by single spaces/dashes, Luhn-valid, issuer prefix.
  {
    type: 'bank-card',
    priority: P_PII,
    // 2-6: Mastercard/Visa/Amex/UnionPay/…; 9558: ICBC's domestic debit cards (19 digits).
    re: /(?<![A-Za-z0-9_.:/-])(?:[2-6]\d{3}|9558)(?:[ -]?\d){9,15}(?![A-Za-z0-9_]|[.:-]\d)/g,
    accept: (m) => {
      const raw = m[0];
      const digits = raw.replace(/\D/g, '');
      if (digits.length < 13 || digits.length > 19) return false;
      const seps = raw.match(/[ -]/g);
      if (seps) {
        // Grouped: 4-4-4-4(-3), 4-6-5 (Amex), 6-13 (UnionPay), all groups >= 4 digits and one separator kind.
        if (new Set(seps).size > 1) return false;
        const groups = raw.split(/[ -]/);
        if (groups.some((g) => g.length < 4 || g.length > 13)) return false;
      }
      if (/^2/.test(digits) && !/^2(?:2[2-9]|[3-6]\d|7[01]|720)/.test(digits)) return false; // MC 2-series only
      if (/^9558/.test(digits)) return digits.length === 19; // ICBC: the prefix and length are specific enough
      if (/^(\d)\1+$/.test(digits)) return false;
      return luhnValid(digits);
    },
  },
  // E-mail address (not scp-style git remotes like git@github.com:org/repo).
  {
    type: 'email',
    priority: P_PII,
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-]|\.[A-Za-z0-9])/g,
    accept: (m, text) =>
      text[m.index + m[0].length] !== ':' ||
      !/^:[\w~./-]/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2)),
  },
];

/** Private key blocks: BEGIN line, the base64/header lines after it, the END line (either may be missing after truncation). */
function privateKeySpans(text: string, spans: Span[]): void {
  const bodyLine = /^(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]{2,40}:.*|\s*)$/;
  // One pass each for BEGIN and END markers, then a merge: linear in the text however many markers.
  const begins = [...text.matchAll(/-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----/g)].map(
    (m) => [m.index, m.index + m[0].length] as const,
  );
  const ends = [...text.matchAll(/-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----/g)].map(
    (m) => [m.index, m.index + m[0].length] as const,
  );
  const usedEnd = new Set<number>();
  let e = 0;
  let coveredUntil = -1;
  for (let b = 0; b < begins.length; b++) {
    const [start, headerEnd] = begins[b]!;
    if (start < coveredUntil) continue;
    const nextBegin = begins[b + 1]?.[0] ?? Infinity;
    while (e < ends.length && ends[e]![0] < headerEnd) e++;
    let stop: number;
    if (e < ends.length && ends[e]![0] < nextBegin) {
      stop = ends[e]![1];
      usedEnd.add(e);
      e++;
    } else {
      // No END: the key body runs over the following base64 / header lines (bounded by the next BEGIN).
      const limit = Math.min(text.length, nextBegin);
      let pos = headerEnd;
      stop = headerEnd;
      const sameLine = /^[ \t]*[A-Za-z0-9+/=]{8,}/.exec(text.slice(pos, Math.min(limit, pos + 10_000)));
      if (sameLine) {
        pos += sameLine[0].length;
        stop = pos;
      }
      while (pos < limit && text[pos] === '\n') {
        const nl = text.indexOf('\n', pos + 1);
        const lineEnd = Math.min(nl < 0 ? text.length : nl, limit);
        const line = text.slice(pos + 1, lineEnd);
        if (line.length === 0 || !bodyLine.test(line)) break;
        stop = lineEnd;
        pos = lineEnd;
      }
    }
    spans.push({ start, end: stop, type: 'private-key', priority: P_TOKEN + 1 });
    coveredUntil = stop;
  }
  // END without a BEGIN (the session window cut the start off): the base64 lines before it.
  for (let i = 0; i < ends.length; i++) {
    if (usedEnd.has(i)) continue;
    const [at, stop] = ends[i]!;
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    let start = lineStart;
    const before = text.slice(Math.max(lineStart, at - 10_000), at);
    if (before.trim() !== '') {
      // Flattened key: base64 right before END on the same line.
      const m = /[A-Za-z0-9+/=]{16,}\s?$/.exec(before);
      start = m ? at - m[0].length : at;
    }
    if (start === lineStart) {
      // Walk back over whole lines of base64.
      while (start > 0) {
        const prevStart = text.lastIndexOf('\n', start - 2) + 1;
        if (!/^[A-Za-z0-9+/=]{8,}$/.test(text.slice(prevStart, start - 1))) break;
        start = prevStart;
      }
    }
    spans.push({ start, end: stop, type: 'private-key', priority: P_TOKEN + 1 });
  }
}

function regexSpans(text: string, spans: Span[]): void {
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = rule.re.exec(text)) !== null) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      if (rule.accept && !rule.accept(m, text)) {
        // Let overlapping shorter matches (e.g. a mobile inside a rejected longer run) still be tried.
        rule.re.lastIndex = m.index + 1;
        continue;
      }
      let start = m.index;
      let end = m.index + m[0].length;
      if (rule.group !== undefined && m[rule.group] !== undefined) {
        let g = m[rule.group]!;
        const offset = m[0].lastIndexOf(g);
        start = m.index + offset;
        // Keep quotes around a quoted value: only the inside is secret.
        if (/^(["']).*\1$/s.test(g) && g.length >= 2) {
          start += 1;
          g = g.slice(1, -1);
        }
        end = start + g.length;
      }
      spans.push({ start, end, type: rule.type, priority: rule.priority });
    }
  }
}

/** Merge overlapping spans: the union is replaced, the highest-priority (then longest) type names it. */
function resolve(spans: Span[]): Span[] {
  if (spans.length === 0) return [];
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      const better =
        s.priority > last.priority ||
        (s.priority === last.priority && s.end - s.start > last.end - last.start);
      last.end = Math.max(last.end, s.end);
      if (better) {
        last.type = s.type;
        last.priority = s.priority;
      }
    } else {
      out.push({ ...s });
    }
  }
  return out;
}

function apply(text: string, spans: Span[]): RedactResult {
  const resolved = resolve(spans);
  const counts = new Map<string, number>();
  const parts: string[] = [];
  let pos = 0;
  for (const s of resolved) {
    parts.push(text.slice(pos, s.start), placeholder(s.type));
    counts.set(s.type, (counts.get(s.type) ?? 0) + 1);
    pos = s.end;
  }
  parts.push(text.slice(pos));
  return { text: parts.join(''), findings: [...counts].map(([type, count]) => ({ type, count })) };
}

/** Spans of text that are already placeholders: never redacted again. */
function placeholderSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const re = /\[REDACTED:[a-z0-9-]{1,40}\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) out.push([m.index, m.index + m[0].length]);
  return out;
}

function collectSync(text: string): Span[] {
  const spans: Span[] = [];
  if (text.includes('PRIVATE KEY')) privateKeySpans(text, spans);
  regexSpans(text, spans);
  const existing = placeholderSpans(text);
  if (existing.length === 0) return spans;
  return spans.filter((s) => !existing.some(([a, b]) => s.start >= a && s.end <= b));
}

/**
 * Redact with our own rules only (no secretlint): synchronous, for hot paths such as a live
 * terminal stream. {@link redactText} finds a superset.
 */
export function redactTextSync(text: string): RedactResult {
  return apply(text, collectSync(text));
}

// --- secretlint --------------------------------------------------------------------------------

interface SecretlintMessage {
  ruleId: string;
  messageId: string;
  range: readonly [number, number];
}
type LintFn = (text: string) => Promise<SecretlintMessage[]>;

let linter: Promise<LintFn | null> | undefined;

/** Load secretlint (ESM) once. Resolves to null if it cannot be loaded; our rules still run. */
function loadSecretlint(): Promise<LintFn | null> {
  linter ??= (async () => {
    try {
      const core = await import('@secretlint/core');
      const preset = await import('@secretlint/secretlint-rule-preset-recommend');
      const config = {
        rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }],
      };
      await silenceProfiler();
      return async (text: string) => {
        const result = await core.lintSource({
          source: { content: text, filePath: 'mnemo-message.txt', contentType: 'text' },
          options: { config, noPhysicFilePath: true },
        });
        return result.messages as SecretlintMessage[];
      };
    } catch {
      return null;
    }
  })();
  return linter;
}

interface ProfilerLike {
  mark: (marker: unknown) => void;
}

/**
 * secretlint's core records every lint in a process-wide profiler (`@secretlint/profiler`) that keeps
 * every performance mark forever and scans them linearly on each new mark. In a sidecar that
 * redacts every captured message that is a leak (about 6 KB per call) and a slowdown that grows
 * with uptime. Core only ever calls `mark()` (nothing reads the entries unless the secretlint CLI
 * runs with --profile, which the sidecar never does), so we turn marking off.
 */
async function silenceProfiler(): Promise<void> {
  try {
    const mod = (await import('@secretlint/profiler')) as unknown as { secretLintProfiler?: ProfilerLike };
    const profiler = mod.secretLintProfiler;
    if (profiler && typeof profiler.mark === 'function') profiler.mark = () => undefined;
  } catch {
    // Not reachable: secretlint still works, only slower over time.
  }
}

/** Our placeholder type for a secretlint finding. */
function secretlintType(m: SecretlintMessage): string {
  const known: Record<string, string> = {
    AWSAccessKeyID: 'aws-access-key-id',
    AWSSecretAccessKey: 'aws-secret-access-key',
    AWSAccountID: 'aws-account-id',
    GITHUB_TOKEN: 'github-token',
    OPENAI_TOKEN: 'openai-key',
    SLACK_TOKEN: 'slack-token',
    IncomingWebhook: 'slack-webhook',
    BasicAuth: 'url-password',
    NPM_ACCESS_TOKEN: 'npm-token',
    GCPServiceAccountKey: 'gcp-service-account-key',
  };
  if (known[m.messageId]) return known[m.messageId]!;
  if (/connection/i.test(m.ruleId) || /Connection$/.test(m.messageId)) return 'url-password';
  if (/privatekey/i.test(m.ruleId)) return 'private-key';
  const short = m.ruleId
    .replace(/^@secretlint\/secretlint-rule-/, '')
    .replace(/[^a-z0-9]+/gi, '-')
    .toLowerCase();
  return `${short}-secret`;
}

/**
 * Map a secretlint finding to the span to replace. Its ranges are sometimes loose (they can start at
 * the variable name and stop short of the value's end), so: keep a leading `name =`, extend to the
 * end of the token, and for credentials in URLs replace only the password.
 */
function secretlintSpan(text: string, m: SecretlintMessage): Span | undefined {
  let [start, end] = m.range;
  if (!(start >= 0 && end > start && end <= text.length)) return undefined;
  const type = secretlintType(m);
  const covered = text.slice(start, end);
  if (type === 'url-password') {
    const cred = /:\/\/[^\s:/?#@'"]{0,128}:([^\s/?#@'"]{1,256})@/.exec(covered);
    if (!cred) return undefined;
    const s = start + cred.index + cred[0].length - 1 - cred[1]!.length;
    if (isReferenceValue(cred[1]!)) return undefined;
    return { start: s, end: s + cred[1]!.length, type, priority: P_TOKEN };
  }
  const assign = /^[A-Za-z0-9_.-]{1,80}["']?\s{0,3}(?:[:=]|=>)\s{0,3}["']?/.exec(covered);
  if (assign && assign[0].length < covered.length) start += assign[0].length;
  while (end < text.length && /[A-Za-z0-9_\-+/=.]/.test(text[end]!)) end++;
  while (end > start && /[.]/.test(text[end - 1]!)) end--; // sentence period after a token
  return { start, end, type, priority: P_TOKEN };
}

/**
 * Redact secrets and personal data. Credentials: secretlint's recommended preset plus our rules;
 * personal data: our rules. Overlapping findings are merged so no fragment of a secret survives.
 * Already-redacted placeholders are left alone (idempotent).
 */
/** A text this long (characters) is redacted in two turns of the event loop (our rules, then secretlint). */
const LONG_TEXT = 20_000;

export async function redactText(text: string): Promise<RedactResult> {
  if (text.length === 0) return { text, findings: [] };
  const spans = collectSync(text);
  if (text.length > LONG_TEXT) await eventLoopTurn(); // two long passes over a long text: JSON-RPC between them
  const lint = await loadSecretlint();
  if (lint) {
    let messages: SecretlintMessage[] = [];
    try {
      messages = await lint(text);
    } catch {
      messages = []; // a crashing rule must not stop capture; our rules already ran
    }
    const existing = placeholderSpans(text);
    for (const m of messages) {
      const s = secretlintSpan(text, m);
      if (s && !existing.some(([a, b]) => s.start >= a && s.end <= b)) spans.push(s);
    }
  }
  return apply(text, spans);
}

/** Sum findings of several redactions (e.g. every message of a session). */
export function mergeFindings(lists: ReadonlyArray<ReadonlyArray<RedactionFinding>>): RedactionFinding[] {
  const counts = new Map<string, number>();
  for (const list of lists) for (const f of list) counts.set(f.type, (counts.get(f.type) ?? 0) + f.count);
  return [...counts].map(([type, count]) => ({ type, count }));
}

/**
 * Redacts every free-text field of a session before it is queued, processed or stored: each message's
 * content, id and speaker name, the session's `source_ref`s (a URL password, a token in a path),
 * `added_by` and `session_id`. A secret pasted into any of them becomes a placeholder there too.
 * Returns the redacted copy and the total number of replacements.
 */
export async function redactSession<T extends SessionInput>(
  session: T,
): Promise<{ session: T; redactions: number; findings: RedactionFinding[] }> {
  const lists: RedactionFinding[][] = [];
  const clean = async (v: string): Promise<string> => {
    const r = await redactText(v);
    lists.push(r.findings);
    return r.text;
  };
  const optional = async (v: unknown): Promise<string | undefined> =>
    typeof v === 'string' ? clean(v) : undefined;
  const messages: RawMessage[] = [];
  const slices = new Slices(); // a long session: the event loop (JSON-RPC) gets a turn between messages
  for (const m of session.messages) {
    await slices.turn();
    const out: RawMessage = { ...m, content: await clean(m.content) };
    if (typeof m.id === 'string') out.id = await clean(m.id);
    if (typeof m.name === 'string') out.name = await clean(m.name);
    messages.push(out);
  }
  const result: T = { ...session, messages };
  if (Array.isArray(session.source_ref)) {
    result.source_ref = [];
    for (const r of session.source_ref) result.source_ref.push(typeof r === 'string' ? await clean(r) : r);
  }
  if (session.added_by !== undefined) result.added_by = await optional(session.added_by);
  if (session.session_id !== undefined) result.session_id = await optional(session.session_id);
  const findings = mergeFindings(lists);
  return { session: result, redactions: findings.reduce((n, f) => n + f.count, 0), findings };
}
