import { generateText, streamText } from 'ai';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelServer, reply } from '../../test-support/model-server';
import { KilnError } from '../../shared/errors';
import { editTools } from '../edit-assistant/harness';
import { createLanguageModel } from './providers';

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(opts: ConstructorParameters<typeof ModelServer>[0] = {}) {
  const server = await ModelServer.start(opts);
  servers.push(server);
  return server;
}

describe('providers', () => {
  it('openai-compatible and openai both speak chat completions to the configured base_url', async () => {
    const server = await start({ apiKey: 'sk-test' });
    server.enqueue(reply.text('from compatible'), reply.text('from openai'));
    const env = { MY_KEY: 'sk-test' };
    const compatible = createLanguageModel(
      {
        alias: 'a',
        provider: 'openai-compatible',
        baseUrl: server.url,
        model: 'm',
        apiKeyEnv: 'MY_KEY',
        source: 'project',
      },
      env,
    );
    const openai = createLanguageModel(
      { alias: 'b', provider: 'openai', baseUrl: server.url, model: 'm', apiKeyEnv: 'MY_KEY', source: 'project' },
      env,
    );
    expect((await generateText({ model: compatible, prompt: 'hi', maxRetries: 0 })).text).toBe('from compatible');
    expect((await generateText({ model: openai, prompt: 'hi', maxRetries: 0 })).text).toBe('from openai');
    expect(server.requests.every((r) => r.headers.authorization === 'Bearer sk-test')).toBe(true);
  });

  it('builds an anthropic model without calling anything', () => {
    const model = createLanguageModel(
      { alias: 'c', provider: 'anthropic', model: 'claude-x', apiKeyEnv: 'K', source: 'user' },
      { K: 'x' },
    );
    expect(typeof model === 'object' && model.provider).toMatch(/anthropic/);
  });

  it('refuses when the env var named by api_key_env is unset', () => {
    const build = () =>
      createLanguageModel(
        { alias: 'a', provider: 'openai', model: 'm', apiKeyEnv: 'NOPE_UNSET', source: 'project' },
        {},
      );
    expect(build).toThrow(KilnError);
    expect(build).toThrow(/NOPE_UNSET/);
  });
});

describe('scripted model server', () => {
  it('streams tool-call arguments split over several chunks, and records requests', async () => {
    const server = await start();
    server.enqueue(reply.propose('a\nb\n', 'ok', { argChunks: 4 }));
    const model = createLanguageModel({
      alias: 's',
      provider: 'openai-compatible',
      baseUrl: server.url,
      model: 'm',
      source: 'project',
    });
    const result = streamText({ model, prompt: 'go', tools: editTools(), maxRetries: 0 });
    let argDeltas = 0;
    for await (const part of result.fullStream) if (part.type === 'tool-input-delta') argDeltas++;
    expect(argDeltas).toBeGreaterThanOrEqual(3);
    expect((await result.toolCalls)[0].input).toEqual({ content: 'a\nb\n' });
    expect(server.lastChatRequest?.tools?.[0].function.name).toBe('propose_file');
  });

  it('answers non-streaming requests with tool calls, lists models, and 404s unknown models', async () => {
    const server = await start({ models: ['known'] });
    server.enqueue(reply.propose('x'));
    const known = createLanguageModel({
      alias: 'k',
      provider: 'openai-compatible',
      baseUrl: server.url,
      model: 'known',
      source: 'project',
    });
    const res = await generateText({ model: known, prompt: 'go', tools: editTools(), maxRetries: 0 });
    expect(res.toolCalls[0].input).toEqual({ content: 'x' });
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['known']);
    const unknown = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'other', messages: [] }),
    });
    expect(unknown.status).toBe(404);
  });

  it('serves replies from a function of the request', async () => {
    const server = await start();
    server.setResponder((req) => reply.text(`you said ${String(req.messages.at(-1)?.content)}`));
    const model = createLanguageModel({
      alias: 's',
      provider: 'openai-compatible',
      baseUrl: server.url,
      model: 'm',
      source: 'project',
    });
    expect((await generateText({ model, prompt: 'ping', maxRetries: 0 })).text).toBe('you said ping');
  });

  it('runs standalone with a scenario file and control endpoints', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-scenario-'));
    const scenario = path.join(dir, 'scenario.json');
    await fs.writeFile(scenario, JSON.stringify({ replies: [{ text: 'scripted hello' }] }));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test-support/model-server.ts', '--port', '0', '--scenario', scenario],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const model = createLanguageModel({
        alias: 's',
        provider: 'openai-compatible',
        baseUrl: url,
        model: 'm',
        source: 'project',
      });
      expect((await generateText({ model, prompt: 'hi', maxRetries: 0 })).text).toBe('scripted hello');
      const base = url.replace(/\/v1$/, '');
      await fetch(`${base}/_scripted/replies`, { method: 'POST', body: JSON.stringify([{ text: 'swapped' }]) });
      expect((await generateText({ model, prompt: 'hi', maxRetries: 0 })).text).toBe('swapped');
      const recorded = (await (await fetch(`${base}/_scripted/requests`)).json()) as unknown[];
      expect(recorded).toHaveLength(2);
    } finally {
      child.kill('SIGTERM');
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
