/**
 * Parses chat transcripts into sessions for `mnemo/capture/session` (no `vscode` import: unit-testable).
 * Accepted shapes:
 * - VS Code "Chat: Export Chat…" JSON (also the stored chatSessions files):
 *   `{ requesterUsername?, responderUsername?, sessionId?, requests: [{ requestId?, timestamp?,
 *      message: { text }, response: [{ value } | { kind: 'markdownContent', content: { value } } | ...] }] }`
 *   — or an array of those;
 * - OpenAI-style messages: `[{ role, content }]` (content a string or `[{ type: 'text', text }]`),
 *   or `{ messages: [...] }`.
 */
import type { RawMessage } from '../../sidecar/protocol';

export interface ParsedSession {
  messages: RawMessage[];
  session_id?: string;
  /** "vscode-chat" or "openai". */
  format: 'vscode-chat' | 'openai';
}

export class ChatParseError extends Error {
  override name = 'ChatParseError';
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Text of one VS Code response part (markdown, inline references, tool invocations). */
function responsePartText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return '';
  const kind = typeof part.kind === 'string' ? part.kind : undefined;
  if (!kind || kind === 'markdownContent' || kind === 'markdownVuln') {
    if (typeof part.value === 'string') return part.value;
    if (isObject(part.content) && typeof part.content.value === 'string') return part.content.value;
    return '';
  }
  if (kind === 'inlineReference') {
    if (typeof part.name === 'string') return `\`${part.name}\``;
    const ref = part.inlineReference;
    if (isObject(ref)) {
      if (typeof ref.name === 'string') return `\`${ref.name}\``;
      if (typeof ref.path === 'string') return `\`${ref.path.split('/').pop()}\``;
      if (isObject(ref.uri) && typeof ref.uri.path === 'string')
        return `\`${ref.uri.path.split('/').pop()}\``;
    }
    return '';
  }
  if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
    const msg = part.pastTenseMessage ?? part.invocationMessage;
    const text =
      typeof msg === 'string' ? msg : isObject(msg) && typeof msg.value === 'string' ? msg.value : '';
    return text ? `\n[tool] ${text}\n` : '';
  }
  return '';
}

function timestampOf(v: unknown): string | number | undefined {
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
}

function parseVscodeSession(obj: Json): ParsedSession {
  const requests = obj.requests;
  if (!Array.isArray(requests)) throw new ChatParseError('The chat export has no "requests" list.');
  const messages: RawMessage[] = [];
  requests.forEach((req, i) => {
    if (!isObject(req)) return;
    const id = typeof req.requestId === 'string' ? req.requestId : `r${i}`;
    const timestamp = timestampOf(req.timestamp);
    /** The person's question (id `…:q`) or the answer (`…:a`) of this request, by whoever the export names. */
    const push = (role: 'user' | 'assistant', content: string, name: unknown) =>
      messages.push({
        role,
        content,
        id: `${id}:${role === 'user' ? 'q' : 'a'}`,
        timestamp,
        name: typeof name === 'string' ? name : undefined,
      });
    const message = req.message;
    const prompt =
      isObject(message) && typeof message.text === 'string'
        ? message.text
        : typeof message === 'string'
          ? message
          : '';
    if (prompt.trim()) push('user', prompt, obj.requesterUsername);
    const parts = Array.isArray(req.response)
      ? req.response
      : isObject(req.response) && Array.isArray(req.response.value)
        ? req.response.value
        : [];
    const answer = parts.map(responsePartText).join('').trim();
    if (answer) push('assistant', answer, obj.responderUsername);
  });
  const session_id = typeof obj.sessionId === 'string' ? obj.sessionId : undefined;
  return { messages, session_id, format: 'vscode-chat' };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : isObject(p) && typeof p.text === 'string' ? p.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

function parseOpenAiMessages(list: unknown[]): ParsedSession {
  const messages: RawMessage[] = [];
  list.forEach((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string')
      throw new ChatParseError(`Message ${i + 1} has no "role".`);
    const content = contentText(m.content);
    if (!content.trim()) return;
    messages.push({
      role: m.role,
      content,
      id: typeof m.id === 'string' ? m.id : `m${i}`,
      name: typeof m.name === 'string' ? m.name : undefined,
      timestamp: timestampOf(m.timestamp ?? m.created_at ?? m.created),
    });
  });
  return { messages, format: 'openai' };
}

/** Sessions in a parsed JSON document; throws {@link ChatParseError} with one sentence when the shape is unknown. */
export function parseChatJson(doc: unknown): ParsedSession[] {
  if (Array.isArray(doc)) {
    if (doc.length === 0) throw new ChatParseError('The file holds an empty list.');
    if (doc.every((d) => isObject(d) && Array.isArray(d.requests)))
      return doc.map((d) => parseVscodeSession(d as Json));
    if (doc.every((d) => isObject(d) && typeof d.role === 'string')) return [parseOpenAiMessages(doc)];
    throw new ChatParseError('The list is neither VS Code chat sessions nor {role, content} messages.');
  }
  if (isObject(doc)) {
    if (Array.isArray(doc.requests)) return [parseVscodeSession(doc)];
    if (Array.isArray(doc.messages)) return [parseOpenAiMessages(doc.messages)];
  }
  throw new ChatParseError(
    'This is not a VS Code chat export ({requests: [...]}) or a list of {role, content} messages.',
  );
}
