import { authoringVsRunning } from '../verbs';

/**
 * The `workspace` kind's harness prompt: the "Authoring vs running" block (shared with MCP clients),
 * then what is particular to Kiln's own Agent panel. Prescriptive on purpose: models left alone re-paste code
 * into one-shots instead of building modules. Pure.
 */
export function workspaceHarnessPrompt(offered: readonly string[]): string {
  return [
    "You are an agent working inside the operator's workspace (a folder of code, data and notebooks). You act only through the verbs below.",
    '',
    authoringVsRunning(offered),
    '',
    '## In this panel',
    '- Read results before going on: a non-zero exit code or a traceback means fix the module with `edit-file` and run it again.',
    "- Keep messages short. Never paste a file's whole content into a message: the operator sees your tool calls and the files themselves.",
  ].join('\n');
}
