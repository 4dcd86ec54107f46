import { asSchema } from 'ai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerbCall, verbInputJsonSchema, VERBS, verbsRequests } from '../../shared/contract/verbs';
import { toWireError } from '../errors';
import { Workspace } from '../workspace';
import { makeTempTree } from '../../test-support/temp-workspace';
import { authoringVsRunning, VERB_NAMES, Verbs, verbsHandlers, verbToolSet } from '.';

let root: string;
let cleanup: () => Promise<void>;
let verbs: Verbs;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({ 'src/a.py': 'A = 1\n' }));
  verbs = new Verbs({ workspace: await Workspace.open({ root }), python: '/usr/bin/python3' });
});
afterEach(async () => {
  await verbs.dispose();
  await cleanup();
});

describe('the verbs contract', () => {
  it('accepts a call to every verb and checks its args against that verb’s schema', () => {
    const options = VerbCall.options.map((option) => option.shape.verb.value).sort();
    expect(options).toEqual([...VERB_NAMES].sort());
    const ok = VerbCall.safeParse({ verb: 'write-file', args: { path: 'x.txt', content: '' } });
    expect(ok.success && ok.data.args).toEqual({ path: 'x.txt', content: '', overwrite: true });
    expect(VerbCall.safeParse({ verb: 'edit-file', args: { path: 'x.txt', mode: 'replace', new: 'y' } }).success).toBe(
      false,
    );
    expect(VerbCall.safeParse({ verb: 'rm-rf', args: {} }).success).toBe(false);
  });

  it('serves verbs.list and verbs.call through its handlers', async () => {
    const handlers = verbsHandlers(verbs);
    const listed = await handlers['verbs.list']({});
    expect(listed.verbs.map((v) => v.name)).toEqual(VERB_NAMES);
    expect(verbsRequests['verbs.list'].result.safeParse(listed).success).toBe(true);
    const args = verbsRequests['verbs.call'].args.parse({ verb: 'execute-code', args: { code: 'print(6 * 7)' } });
    const result = await handlers['verbs.call'](args);
    expect(result).toMatchObject({ stdout: '42\n', returncode: 0 });
    expect(verbsRequests['verbs.call'].result.safeParse(result).success).toBe(true);
    const refused = await Promise.resolve()
      .then(() =>
        handlers['verbs.call'](verbsRequests['verbs.call'].args.parse({ verb: 'run-file', args: { path: 'nope.py' } })),
      )
      .catch(toWireError);
    expect(refused).toMatchObject({ code: 'E_NOT_FOUND' });
  });
});

describe('the harness guide', () => {
  it('gives each offered verb its line from the table, in the table’s order, and nothing for the others', () => {
    const guide = authoringVsRunning(['run-file', 'list-files']);
    const lines = guide
      .slice(guide.indexOf('## In Kiln'))
      .split('\n')
      .filter((line) => line.startsWith('- `'));
    expect(lines.slice(0, 2)).toEqual([
      `- \`list-files\`: ${VERBS['list-files'].guide}`,
      `- \`run-file\`: ${VERBS['run-file'].guide}`,
    ]);
    expect(guide).not.toContain('- `write-file`: ');
    expect(authoringVsRunning([])).toContain('- (none: answer in text only)');
  });
});

describe('the verbs as AI SDK tools', () => {
  it('carry the same JSON Schemas as MCP, honour the allowlist, and run the verb', async () => {
    expect(Object.keys(verbToolSet(verbs, { only: ['write-file', 'run-file'] }))).toEqual(['write-file', 'run-file']);
    const tools = verbToolSet(verbs);
    expect(Object.keys(tools)).toEqual(VERB_NAMES);
    for (const name of VERB_NAMES) {
      expect(await asSchema(tools[name].inputSchema).jsonSchema).toEqual(verbInputJsonSchema(name));
    }
    const output = await tools['write-file'].execute!(
      { path: 'src/b.py', content: 'B = 2\n' },
      { toolCallId: 't1', messages: [] },
    );
    expect(output).toEqual({ path: 'src/b.py', bytes_written: 6, created: true });
    expect(readFileSync(path.join(root, 'src/b.py'), 'utf8')).toBe('B = 2\n');
  });
});
