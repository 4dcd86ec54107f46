/**
 * A scripted model server on 127.0.0.1 that speaks the OpenAI-compatible chat completions API
 * (`POST /v1/chat/completions`, streaming SSE and non-streaming; `GET /v1/models`).
 *
 * Tests script its replies (a queue, or a function of the request) and read back the requests it
 * received, so they can assert what the harness sent. It is real HTTP: clients go through their
 * real code path (the AI SDK providers, fetch, SSE parsing).
 *
 * Standalone (for Playwright): `node --import tsx test-support/model-server.ts --port N --scenario file.json`
 * prints `model-server listening on http://127.0.0.1:N/v1` and serves until killed. The scenario file
 * is a `ScenarioFile` (JSON). At run time, `POST /_scripted/replies` (body: ScriptedReply[] or
 * { replies, loop? }) replaces the queue, `GET /_scripted/requests` returns what was received,
 * `POST /_scripted/reset` clears both.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** One scripted reply to one chat completion request. Every field is optional. */
export interface ScriptedReply {
  /** Reply with this HTTP status and an OpenAI-style error body instead of a completion. */
  status?: number;
  /** Message for the error body when `status` is set. */
  errorMessage?: string;
  /** Assistant text, streamed as `delta.content` chunks. */
  text?: string;
  /** Tool calls; `arguments` given as a string is sent verbatim (so it can be malformed JSON). */
  toolCalls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
  /** Characters per content chunk (default 6). */
  chunkSize?: number;
  /** How many chunks a tool call's arguments are split over (default 3). */
  argChunks?: number;
  /** Delay between SSE chunks, in ms (default 0); a slow stream gives a test time to press Stop. */
  delayMs?: number;
  /** Stop after this many SSE chunks until `until` settles: a test sees the reply mid-stream for certain. */
  pause?: { afterChunks: number; until: Promise<unknown> };
  /** Destroy the connection after this many SSE chunks: a stream cut mid-way, no finish, no [DONE]. */
  cutAfterChunks?: number;
  /** Override the finish_reason (default 'tool_calls' when there are tool calls, else 'stop'). */
  finishReason?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (chat completions), or null. */
  body: ChatRequestBody | null;
}

/** The parts of a chat completions request body tests look at. */
export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: unknown } }>;
  [key: string]: unknown;
}

export type ReplyFunction = (request: ChatRequestBody, index: number) => ScriptedReply;

export interface ModelServerOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Model ids the server knows; a request for any other model gets 404. Default: any model. */
  models?: string[];
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** Replies served in order; when empty, `fallback` (or a short default text) is used. */
  replies?: ScriptedReply[];
  /** Serve `replies` round-robin instead of consuming them. */
  loop?: boolean;
  /** Computes a reply from the request; takes precedence over the queue. */
  respond?: ReplyFunction;
  fallback?: ScriptedReply;
}

/** The JSON a standalone server reads with `--scenario`. */
export interface ScenarioFile {
  models?: string[];
  apiKey?: string;
  replies?: ScriptedReply[];
  loop?: boolean;
  fallback?: ScriptedReply;
}

/** Shorthands for common replies. */
export const reply = {
  text: (text: string, extra: ScriptedReply = {}): ScriptedReply => ({ text, ...extra }),
  /** A `propose_file` call carrying the full new content, optionally after some text. */
  propose: (content: string, text?: string, extra: ScriptedReply = {}): ScriptedReply => ({
    text,
    toolCalls: [{ name: 'propose_file', arguments: { content } }],
    ...extra,
  }),
  /** One call of any tool (e.g. a workspace verb) with these arguments, optionally after some text. */
  tool: (name: string, args: Record<string, unknown>, text?: string, extra: ScriptedReply = {}): ScriptedReply => ({
    text,
    toolCalls: [{ name, arguments: args }],
    ...extra,
  }),
  /** A `propose_file` call whose arguments are not valid JSON. */
  malformedToolArgs: (): ScriptedReply => ({
    toolCalls: [{ name: 'propose_file', arguments: '{"content": "unterminated' }],
  }),
  /** A `propose_file` call without its `content` argument. */
  missingToolArg: (): ScriptedReply => ({ toolCalls: [{ name: 'propose_file', arguments: {} }] }),
  /** Starts streaming `text`, then drops the connection. */
  cut: (text = 'This reply will be cut off somewhere in the middle', afterChunks = 3): ScriptedReply => ({
    text,
    cutAfterChunks: afterChunks,
  }),
  status: (status: number, errorMessage?: string): ScriptedReply => ({ status, errorMessage }),
  /** A long stream with a pause between chunks, for Stop. */
  slow: (text = 'word '.repeat(400), delayMs = 50): ScriptedReply => ({ text, chunkSize: 5, delayMs }),
};

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  private opts: ModelServerOptions;
  private queue: ScriptedReply[];
  private served = 0;
  private port = 0;

  constructor(opts: ModelServerOptions = {}) {
    this.opts = opts;
    this.queue = [...(opts.replies ?? [])];
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts listening; resolves with the server. */
  static async start(opts: ModelServerOptions = {}): Promise<ModelServer> {
    const server = new ModelServer(opts);
    await server.listen(opts.port ?? 0);
    return server;
  }

  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Base URL to put in `base_url` (ends in /v1). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Adds replies to the end of the queue. */
  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /** Replaces the queue (and optionally loop mode). */
  setReplies(replies: ScriptedReply[], loop = false): void {
    this.queue = [...replies];
    this.opts = { ...this.opts, loop };
    this.served = 0;
  }

  /** Computes replies from requests; pass undefined to go back to the queue. */
  setResponder(respond: ReplyFunction | undefined): void {
    this.opts = { ...this.opts, respond };
  }

  /** Chat completion requests only, in order. */
  get chatRequests(): ChatRequestBody[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions') && r.body).map((r) => r.body!);
  }

  get lastChatRequest(): ChatRequestBody | undefined {
    return this.chatRequests.at(-1);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue = [];
    this.served = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextReply(body: ChatRequestBody): ScriptedReply {
    const index = this.served++;
    if (this.opts.respond) return this.opts.respond(body, index);
    if (this.opts.loop && this.queue.length > 0) return this.queue[index % this.queue.length];
    return this.queue.shift() ?? this.opts.fallback ?? { text: '(no scripted reply)' };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;

    if (path.startsWith('/_scripted/')) return this.handleControl(req.method ?? 'GET', path, raw, res);

    let body: ChatRequestBody | null;
    try {
      body = raw ? (JSON.parse(raw) as ChatRequestBody) : null;
    } catch {
      body = null;
    }
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });

    if (this.opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.opts.apiKey}`) {
      return sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      const ids = this.opts.models ?? ['scripted-model'];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: 'kiln-tests' })) }),
      );
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return sendError(res, 404, `No route for ${req.method} ${path}`, 'invalid_request_error');
    }
    if (!body) return sendError(res, 400, 'Body is not JSON', 'invalid_request_error');
    if (this.opts.models && !this.opts.models.includes(body.model)) {
      return sendError(
        res,
        404,
        `The model '${body.model}' does not exist`,
        'invalid_request_error',
        'model_not_found',
      );
    }

    const scripted = this.nextReply(body);
    if (scripted.status && scripted.status >= 400) {
      return sendError(
        res,
        scripted.status,
        scripted.errorMessage ?? `Scripted error ${scripted.status}`,
        'scripted_error',
      );
    }
    if (body.stream) return streamReply(res, body.model, scripted);
    return completeReply(res, body.model, scripted);
  }

  private handleControl(method: string, path: string, raw: string, res: http.ServerResponse): void {
    res.setHeader('content-type', 'application/json');
    if (method === 'GET' && path === '/_scripted/requests') {
      res.end(JSON.stringify(this.requests.map((r) => ({ path: r.path, body: r.body }))));
      return;
    }
    if (method === 'POST' && path === '/_scripted/replies') {
      const parsed = JSON.parse(raw || '[]') as ScriptedReply[] | { replies: ScriptedReply[]; loop?: boolean };
      if (Array.isArray(parsed)) this.setReplies(parsed);
      else this.setReplies(parsed.replies, parsed.loop ?? false);
      res.end(JSON.stringify({ ok: true, queued: this.queue.length }));
      return;
    }
    if (method === 'POST' && path === '/_scripted/reset') {
      this.reset();
      res.end(JSON.stringify({ ok: true }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error: { message: `No control route ${method} ${path}` } }));
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res: http.ServerResponse, status: number, message: string, type: string, code?: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: code ?? null } }));
}

function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

function splitInto(text: string, count: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  return splitEvery(text, size);
}

function toolArguments(args: string | Record<string, unknown>): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function streamReply(res: http.ServerResponse, model: string, scripted: ScriptedReply): Promise<void> {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitEvery(scripted.text ?? '', scripted.chunkSize ?? 6)) events.push(chunk({ content: piece }));
  (scripted.toolCalls ?? []).forEach((call, index) => {
    const callId = call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`;
    const argParts = splitInto(toolArguments(call.arguments), scripted.argChunks ?? 3);
    events.push(
      chunk({
        tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: argParts[0] } }],
      }),
    );
    for (const part of argParts.slice(1))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  const finish = scripted.finishReason ?? (scripted.toolCalls?.length ? 'tool_calls' : 'stop');
  events.push(chunk({}, finish));

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let sent = 0;
  for (const event of events) {
    if (res.destroyed) return;
    if (scripted.cutAfterChunks !== undefined && sent >= scripted.cutAfterChunks) {
      // A real cut: no finish_reason, no [DONE], the socket just goes away.
      res.socket?.destroy();
      return;
    }
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    sent++;
    if (sent === scripted.pause?.afterChunks) await scripted.pause.until;
    if (scripted.delayMs) await sleep(scripted.delayMs);
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

function completeReply(res: http.ServerResponse, model: string, scripted: ScriptedReply): void {
  const toolCalls = (scripted.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    type: 'function',
    function: { name: call.name, arguments: toolArguments(call.arguments) },
  }));
  const finish = scripted.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: `chatcmpl-${Math.random().toString(36).slice(2, 10)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: scripted.text ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finish,
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
  );
}

function argValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: string[]): Promise<void> {
  const port = Number(argValue(argv, '--port') ?? 0);
  const scenarioPath = argValue(argv, '--scenario');
  const scenario: ScenarioFile = scenarioPath ? (JSON.parse(readFileSync(scenarioPath, 'utf8')) as ScenarioFile) : {};
  const server = await ModelServer.start({ port, ...scenario });
  process.stdout.write(`model-server listening on ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2));
}
