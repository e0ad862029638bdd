/**
 * The one small contract every agent's adapter keeps (sidecar/capture/sources/<agent>.ts): discover the
 * transcripts on this machine → read what is new since the file's durable cursor → normalized messages.
 * What happens next (dedupe by id, Mnemo's own text, projects, the durable queue) is the runner's
 * (capture.ts), the same for every agent. Adding an agent is one adapter file and its fixture.
 */
import type { CaptureSourceId } from '../shared/agentSources';
import type { Stamped } from './read';

/** Where an adapter looks: the home folder, environment and platform, and what the editor knows exactly. */
export interface SourceEnv {
  home: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** VS Code's user folder (`…/Code/User`), exact inside the editor; else each adapter's platform default. */
  vscodeUserDir?: string;
  /** This workspace's storage folder (`…/workspaceStorage/<id>`), known exactly inside the editor only. */
  workspaceStorage?: string;
  /** The folders being captured for (the workspace's, or the CLI's current folder). */
  folders: string[];
}

/** One transcript file (or, for whole-task formats, the file that holds a task's messages). */
export interface TranscriptFile {
  source: CaptureSourceId;
  path: string;
  /** The agent's own session id (a sub-agent transcript has its own). */
  sessionId: string;
  /** The working folder, when known without reading messages (a metadata line, an index, the location). */
  cwd?: string;
  /** The session this one was forked from or spawned by (sub-agents). */
  parentSessionId?: string;
  /** The file is appended to (read from a byte offset) rather than rewritten whole. */
  appendOnly: boolean;
}

/** What an agent's tool call became: a short record, as terminal capture keeps a command. */
export interface ToolRecord {
  /** The tool's own name (`Bash`, `shell`, `run_in_terminal`, `Edit`, `mcp__mnemo__recall`). */
  name: string;
  /** The shell command, when the tool ran one: such calls become `$ cmd` / `exit N · output` messages. */
  command?: string;
  /** What else the call was about, in a few words (a file path, a query), for tools that run no command. */
  target?: string;
  /** The command's exit code, when the agent recorded one. */
  exitCode?: number;
  /** The tool reported a failure (an error result) even when no exit code is known. */
  failed?: boolean;
  /** The result's text, whole as the agent wrote it: the runner keeps its head and tail only. */
  output?: string;
}

/** One message of a transcript, normalized. */
export interface CapturedMessage {
  /** Stable and unique among the source's messages: a message is learned once whatever file it is read from. */
  id: string;
  /** `user`: the person's own words; `assistant`: the agent (and its sub-agents); `tool`: a tool call and its result. */
  role: 'user' | 'assistant' | 'tool';
  /** Who said it, when not the person: the agent's name (`Claude Code`, `Claude Code (sub-agent)`). */
  speaker?: string;
  text: string;
  /** UTC ISO-8601 with Z, when the transcript dates it. */
  timestamp?: string;
  /** The working folder the message was written in, when the transcript says. */
  cwd?: string;
  tool?: ToolRecord;
  /**
   * The records one message was merged from (a reply streamed as several lines), each with its own id and
   * text: a fragment already learned is not learned again, one that arrives later is learned on its own.
   */
  parts?: { key: string; text: string }[];
  /** Byte offset where the message's first line starts (append-only files): reading resumes here while it is open. */
  startOffset?: number;
  /** Not finished yet: a streamed reply that may go on, a tool call without its result, a pending request. */
  open?: boolean;
}

/** How a read may treat the end of a transcript. */
export interface ReadOptions {
  /** The file was not written for a moment: its last records are whole (a streamed reply is done). */
  settled: boolean;
  /** The session ended (a hook said so, or the file has been quiet long): nothing stays open. */
  final: boolean;
  /** Read at most this many bytes of an append-only file in one pass (the rest next time). */
  maxBytes: number;
}

/** What an adapter needs to resume a file, persisted in the file's cursor (small JSON). */
export type AdapterState = Record<string, unknown>;

export interface ReadResult {
  messages: CapturedMessage[];
  /** Append-only files: the byte offset up to which every line is whole and was read. */
  endOffset?: number;
  /** The adapter's state to resume from `endOffset` (e.g. the session's working folder from its first line). */
  state?: AdapterState;
  /** The working folder of the session, as the transcript states it. */
  cwd?: string;
  /** A better session id or title than the file name gave. */
  sessionId?: string;
  title?: string;
  /** Records that could not be read: each kind once, with how many. */
  skipped: SkippedRecords;
}

/** Records skipped while reading, by reason (`unknown record type "x"`, `not JSON`, `line over 16 MB`). */
export type SkippedRecords = Record<string, number>;

export interface SourceAdapter {
  id: CaptureSourceId;
  /** The agent's name as speaker of its replies. */
  speaker: string;
  /** The folders this agent keeps its transcripts in on this machine (existing or not): for `mnemo sources` and the docs. */
  roots(env: SourceEnv): string[];
  /** The transcripts of this agent; bounded walks, no message read. */
  discover(env: SourceEnv): Promise<TranscriptFile[]>;
  /**
   * The session's working folder when discovery did not know it: read from metadata only (a first line,
   * an index entry), never from messages. Undefined when the transcript does not say.
   */
  cwdOf?(file: TranscriptFile, env: SourceEnv): Promise<string | undefined>;
  /** The messages of a file from a cursor (`offset` and `state` of the last read; 0 and undefined the first time). */
  read(
    file: TranscriptFile,
    offset: number,
    state: AdapterState | undefined,
    opts: ReadOptions,
  ): Promise<ReadResult>;
  /** Why this agent's store cannot be read right now (one sentence), checked before reading. */
  unavailable?(file: TranscriptFile): Promise<string | undefined>;
  /** The stamp of a transcript that is not a file of its own (a chat in a database); default: the file's. */
  stamp?(file: TranscriptFile): Promise<Stamped>;
}
