/**
 * Answers `mnemo/llm/complete` from the sidecar when `mnemo.llm.provider` is "vscode-lm": the
 * extraction prompt runs through one of VS Code's language models (vscode.lm), feature-detected.
 */
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { ErrorCodes, type LlmCompleteParams, type LlmCompleteResult } from '../sidecar/protocol';

async function pickModel(hint: string | undefined): Promise<vscode.LanguageModelChat | undefined> {
  if (hint) {
    for (const selector of [{ id: hint }, { family: hint }]) {
      const models = await vscode.lm.selectChatModels(selector);
      if (models.length) return models[0];
    }
  }
  const any = await vscode.lm.selectChatModels();
  return any[0];
}

export async function completeWithVscodeLm(
  params: LlmCompleteParams,
  token: vscode.CancellationToken,
): Promise<LlmCompleteResult> {
  if (typeof vscode.lm?.selectChatModels !== 'function') {
    throw new ResponseError(
      ErrorCodes.LlmUnavailable,
      'This VS Code has no language model API; set "mnemo.llm.provider" to "openai-compatible" or "off".',
    );
  }
  const model = await pickModel(params.model);
  if (!model) {
    throw new ResponseError(
      ErrorCodes.LlmUnavailable,
      'No VS Code language model is available (is a chat extension installed and signed in?).',
    );
  }
  // vscode.lm has no system role: system text goes first as a user message.
  const messages = params.messages.map((m) =>
    m.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(m.content)
      : vscode.LanguageModelChatMessage.User(m.content),
  );
  const maxChars = (params.max_tokens ?? 2000) * 6;
  try {
    const response = await model.sendRequest(
      messages,
      {
        justification:
          'Mnemo extracts what is worth remembering from your sessions (mnemo.llm.provider is "vscode-lm").',
      },
      token,
    );
    let text = '';
    for await (const fragment of response.text) {
      text += fragment;
      if (text.length > maxChars) break;
    }
    return { text, model: model.id };
  } catch (err) {
    if (err instanceof vscode.LanguageModelError) {
      throw new ResponseError(
        ErrorCodes.LlmUnavailable,
        `The VS Code language model refused the request (${err.code || err.message}).`,
      );
    }
    throw err;
  }
}
