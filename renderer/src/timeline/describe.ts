import type { HistoryEntry } from '../../../shared/contract';

/** Who replaced a version (or wrote it, for another program's change), as the Timeline says it. */
export function describeEntry(entry: HistoryEntry): string {
  const who =
    entry.origin === 'operator'
      ? 'you'
      : entry.origin === 'agent'
        ? 'the Agent'
        : entry.origin === 'mcp'
          ? (entry.mcpClient ?? 'an MCP client')
          : 'another program';
  switch (entry.reason) {
    case 'write':
      return `Before a save by ${who}`;
    case 'delete':
      return `Before a delete by ${who}`;
    case 'restore':
      return 'Before a restore';
    case 'external':
      return 'Written by another program';
    case 'create':
      return `Did not exist before ${who} created it`;
  }
}

/** The entry's time: hours to seconds today, else with the date. */
export function entryTime(at: number, now = Date.now()): string {
  const date = new Date(at);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return sameDay ? time : `${date.toLocaleDateString()} ${time}`;
}
