import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import { VERB_NAMES, verbInputJsonSchema, VERBS, type VerbName } from '../../shared/contract/verbs';
import type { Verbs } from './verbs';

/**
 * The verbs as AI SDK tools for Kiln's own Agent, with exactly the JSON Schemas the MCP server lists.
 * `only` is the config's allowlist (absent = every verb). Verbs.call validates the arguments, and a refusal
 * is thrown as a KilnError, which the AI SDK hands back to the model as a tool error.
 */
export function verbToolSet(verbs: Verbs, options: { only?: readonly string[] | null } = {}): ToolSet {
  const allowed = options.only ? new Set(options.only) : null;
  const tools: ToolSet = {};
  for (const name of VERB_NAMES) {
    if (allowed && !allowed.has(name)) continue;
    tools[name] = verbTool(verbs, name);
  }
  return tools;
}

function verbTool(verbs: Verbs, name: VerbName) {
  return tool({
    description: VERBS[name].description,
    inputSchema: jsonSchema<Record<string, unknown>>(verbInputJsonSchema(name) as JSONSchema7),
    execute: (input, { abortSignal }) => verbs.call(name, input, { signal: abortSignal }),
  });
}
