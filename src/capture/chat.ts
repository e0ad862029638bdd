/**
 * The `@mnemo` chat participant (feature-detected `vscode.chat`): answers with recalled memories as
 * context through the request's language model; `/remember <text>`, `/recall <query>`,
 * `/forget <query>` (shows the best match with a "Mark as Wrong" button — the confirmation). Its own
 * conversations are captured as chat sessions (`mnemo.capture.chat.enabled`).
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { RawMessage } from '../../sidecar/protocol';
import {
  CaptureSessionRequest,
  RecallRequest,
  RememberRequest,
  type RecallParams,
  type RecallResult,
} from '../../sidecar/protocol';
import { currentUser } from '../client';
import { config } from '../config';
import type { Ctx } from '../ctx';
import type { CapturePause } from '../shared/pause';
import { describeError, errorDetail } from '../errors';
import { projectIdForUri, projectLabel } from '../projects';
import { CATEGORY_LABEL, percent, shortText, type RememberedWords } from '../shared/memoryText';
import { Command } from '../commandIds';
import { recallParams } from '../recallParams';

export const PARTICIPANT_ID = 'mnemo.chat';

/** What `/remember` says it did. */
const REMEMBERED: RememberedWords = {
  stored: 'Remembered',
  refreshed: 'I already knew that; refreshed it',
  pending: 'Remembered; it waits in the review queue',
};

interface MnemoChatResult extends vscode.ChatResult {
  metadata: { command: string; memoryIds?: string[] };
}

function currentProject(): string {
  return projectIdForUri(vscode.window.activeTextEditor?.document.uri);
}

/** Turns of earlier @mnemo requests in this conversation as plain messages. */
function historyMessages(context: vscode.ChatContext): RawMessage[] {
  const out: RawMessage[] = [];
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      out.push({ role: 'user', content: turn.prompt });
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const text = turn.response
        .map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : ''))
        .join('')
        .trim();
      if (text) out.push({ role: 'assistant', content: text });
    }
  }
  return out;
}

/** One conversation keeps one session id: derived from its first prompt. */
function sessionIdFor(context: vscode.ChatContext, prompt: string): string {
  const first =
    context.history.find((t): t is vscode.ChatRequestTurn => t instanceof vscode.ChatRequestTurn)?.prompt ??
    prompt;
  return `chat-${createHash('sha256').update(first).digest('hex').slice(0, 12)}`;
}

function listItems(result: RecallResult): string {
  return result.items
    .map(
      (it, i) =>
        `${i + 1}. ${shortText(it.memory.text, 200)}  \n   _${CATEGORY_LABEL[it.memory.category] ?? it.memory.category} · ${percent(it.memory.confidence_score)} confidence · ${it.channel} ${it.score.toFixed(2)} · ${projectLabel(it.memory.project_id)}_`,
    )
    .join('\n');
}

/** What the person wrote after the command; when nothing, they are asked (`ask`) and it is empty. */
function said(request: vscode.ChatRequest, stream: vscode.ChatResponseStream, ask: string): string {
  const text = request.prompt.trim();
  if (!text) stream.markdown(ask);
  return text;
}

export class ChatCapture implements vscode.Disposable {
  readonly participant: vscode.ChatParticipant | undefined;
  /** Exchanges captured (tests read it). */
  captured = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly pause: CapturePause,
  ) {
    const chat = (vscode as Partial<typeof vscode>).chat;
    if (typeof chat?.createChatParticipant !== 'function') {
      ctx.log.info('The @mnemo chat participant is unavailable: this VS Code has no chat API.');
      return;
    }
    this.participant = chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) =>
      this.handle(request, context, stream, token),
    );
    this.participant.iconPath = vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'mnemo.svg');
    this.participant.followupProvider = {
      provideFollowups: (result: vscode.ChatResult) => {
        const meta = (result as MnemoChatResult).metadata;
        if (meta?.command === 'answer' || meta?.command === 'recall') {
          return [
            {
              prompt: 'Show what would be injected for this',
              command: 'recall',
              label: 'Show recalled memories',
            },
          ];
        }
        return [];
      },
    };
  }

  dispose(): void {
    this.participant?.dispose();
  }

  /** The participant's request handler (what the chat view calls for `@mnemo ...`). */
  async handle(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<MnemoChatResult> {
    const command = request.command ?? 'answer';
    try {
      switch (command) {
        case 'remember':
          return await this.remember(request, stream);
        case 'recall':
          return await this.recall(request, stream, token);
        case 'forget':
          return await this.forget(request, stream, token);
        default:
          return await this.answer(request, context, stream, token);
      }
    } catch (err) {
      this.ctx.log.error(`@mnemo ${command} failed: ${errorDetail(err)}`);
      const message = describeError(err);
      stream.markdown(message);
      return { errorDetails: { message }, metadata: { command } };
    }
  }

  private async remember(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
  ): Promise<MnemoChatResult> {
    const text = said(
      request,
      stream,
      'Tell me what to remember, e.g. `/remember Run database migrations with --dry-run first`.',
    );
    if (!text) return { metadata: { command: 'remember' } };
    const decision = await this.ctx.request(RememberRequest, {
      text,
      project_id: currentProject(),
      source_type: 'chat',
      source_ref: ['chat:@mnemo'],
      added_by: currentUser(),
    });
    if (decision.outcome === 'dropped') {
      stream.markdown(`I did not keep it: ${decision.reason}.`);
    } else {
      stream.markdown(
        `${REMEMBERED[decision.outcome]}${decision.category ? ` (${CATEGORY_LABEL[decision.category]})` : ''} for **${projectLabel(currentProject())}**.`,
      );
      if (decision.id)
        stream.button({ command: Command.editMemory, arguments: [decision.id], title: 'Edit' });
    }
    return { metadata: { command: 'remember', memoryIds: decision.id ? [decision.id] : [] } };
  }

  /** `tool`: what the person asked `@mnemo` (`answer`, `/recall`, `/forget`), as the ledger records it. */
  private recallParams(
    query: string,
    tool: string,
    extra: Partial<{ top_k: number; min_confidence: number; mark_used: boolean }> = {},
  ): RecallParams {
    return recallParams(query, { surface: 'chat', name: '@mnemo', tool }, extra);
  }

  private async recall(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<MnemoChatResult> {
    const query = said(request, stream, 'What should I look for? e.g. `/recall how do we deploy`.');
    if (!query) return { metadata: { command: 'recall' } };
    stream.progress('Recalling memories…');
    const result = await this.ctx.request(RecallRequest, this.recallParams(query, '/recall'), token);
    if (result.items.length === 0) {
      stream.markdown(`Nothing recalled above ${percent(config.recall.minConfidence())} confidence.`);
    } else {
      stream.markdown(
        `${listItems(result)}\n\nAn agent would receive ${result.tokens} tokens of context for this.`,
      );
      stream.button({ command: Command.previewInjection, arguments: [query], title: 'Preview Injection' });
    }
    return { metadata: { command: 'recall', memoryIds: result.items.map((i) => i.memory.id) } };
  }

  private async forget(
    request: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<MnemoChatResult> {
    const query = said(
      request,
      stream,
      'What should I forget? Describe it, e.g. `/forget staging uses port 8080`.',
    );
    if (!query) return { metadata: { command: 'forget' } };
    stream.progress('Looking for the memory…');
    const result = await this.ctx.request(
      RecallRequest,
      this.recallParams(query, '/forget', { top_k: 3, min_confidence: 0, mark_used: false }),
      token,
    );
    const best = result.items[0];
    if (!best) {
      stream.markdown('I found no memory like that.');
      return { metadata: { command: 'forget' } };
    }
    stream.markdown(
      `Best match (${best.channel} ${best.score.toFixed(2)}, ${percent(best.memory.confidence_score)} confidence):\n\n> ${shortText(best.memory.text, 400)}\n\nMark it as wrong? It will no longer be recalled, and Mnemo will not learn it again.`,
    );
    stream.button({ command: Command.markWrong, arguments: [best.memory.id], title: 'Mark as Wrong' });
    if (result.items.length > 1) {
      stream.markdown(
        `\n\nOther candidates:\n${result.items
          .slice(1)
          .map((it) => `- ${shortText(it.memory.text, 120)}`)
          .join('\n')}`,
      );
    }
    return { metadata: { command: 'forget', memoryIds: result.items.map((i) => i.memory.id) } };
  }

  private async answer(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<MnemoChatResult> {
    const prompt = request.prompt.trim();
    stream.progress('Recalling memories…');
    const recalled = await this.ctx.request(
      RecallRequest,
      this.recallParams(prompt || 'project conventions', 'answer'),
      token,
    );
    const model: vscode.LanguageModelChat | undefined =
      (request as Partial<vscode.ChatRequest>).model ??
      (typeof vscode.lm?.selectChatModels === 'function'
        ? (await vscode.lm.selectChatModels())[0]
        : undefined);
    let answer = '';
    if (!model) {
      answer = recalled.items.length
        ? `No language model is available, so here is what I remember:\n\n${listItems(recalled)}`
        : 'No language model is available, and I remember nothing relevant to this.';
      stream.markdown(answer);
    } else {
      const system = [
        'You are @mnemo, an assistant that answers using the long-term memories of this engineer and project.',
        recalled.block
          ? `These memories were recalled for the question (most relevant first):\n\n${recalled.block}`
          : 'No memories were recalled for this question.',
        'Use a memory only when it applies; say which one you relied on. If the memories do not answer the question, say so briefly and answer from general knowledge.',
      ].join('\n\n');
      const messages = [
        vscode.LanguageModelChatMessage.User(system),
        ...historyMessages(context).map((m) =>
          m.role === 'assistant'
            ? vscode.LanguageModelChatMessage.Assistant(m.content)
            : vscode.LanguageModelChatMessage.User(m.content),
        ),
        vscode.LanguageModelChatMessage.User(prompt),
      ];
      const response = await model.sendRequest(messages, {}, token);
      for await (const fragment of response.text) {
        answer += fragment;
        stream.markdown(fragment);
      }
    }
    if (recalled.items.length) {
      stream.markdown(
        `\n\n---\n_Recalled ${recalled.items.length} ${recalled.items.length === 1 ? 'memory' : 'memories'} (${recalled.tokens} tokens)._`,
      );
    }
    void this.capture(context, prompt, answer);
    return { metadata: { command: 'answer', memoryIds: recalled.items.map((i) => i.memory.id) } };
  }

  /** Captures one exchange as a chat session (same session id for the whole conversation). */
  private async capture(context: vscode.ChatContext, prompt: string, answer: string): Promise<void> {
    if (!config.capture.chat.enabled() || this.pause.paused || !prompt || !answer.trim()) return;
    const now = new Date().toISOString();
    const session_id = sessionIdFor(context, prompt);
    const turn = context.history.length;
    try {
      await this.ctx.request(CaptureSessionRequest, {
        project_id: currentProject(),
        source_type: 'chat',
        messages: [
          { role: 'user', content: prompt, id: `${session_id}:${turn}:q`, timestamp: now },
          { role: 'assistant', content: answer, id: `${session_id}:${turn}:a`, timestamp: now },
        ],
        source_ref: ['chat:@mnemo'],
        added_by: currentUser(),
        session_id,
        live: true,
      });
      this.captured++;
    } catch (err) {
      this.ctx.log.warn(`The @mnemo exchange was not captured: ${errorDetail(err)}`);
    }
  }
}
