import fuzzysort from 'fuzzysort';
import { useMemo, useState } from 'react';
import { IS_MAC, Picker, highlight, type PickerItem } from '../ui';
import { formatKeys } from './keys';
import type { Command } from './registry';

/** Every command that applies where the operator was, with its key binding, fuzzy-filtered; Enter runs it. */
export function CommandPalette({
  commands,
  onRun,
  onClose,
}: {
  /** Taken when the palette opened, so "where the operator was" decides what applies. */
  commands: Command[];
  onRun: (command: Command) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const items = useMemo<PickerItem[]>(() => {
    const labelled = commands.map((command) => ({
      command,
      text: command.category ? `${command.category}: ${command.title}` : command.title,
    }));
    const toItem = (c: (typeof labelled)[number], positions: readonly number[] = []): PickerItem => ({
      id: c.command.id,
      label: c.command.title,
      // The category is CSS content: the option's visible text is its name, the title (WCAG 2.5.3).
      content: c.command.category ? (
        <>
          <span className="picker-category" aria-hidden data-category={`${c.command.category}: `} />
          {highlight(c.command.title, positions, c.text.length - c.command.title.length)}
        </>
      ) : (
        highlight(c.text, positions)
      ),
      hint: c.command.keys ? formatKeys(c.command.keys, IS_MAC) : undefined,
    });
    if (!query.trim()) return labelled.map((c) => toItem(c)).sort((a, b) => a.label.localeCompare(b.label));
    return fuzzysort.go(query.trim(), labelled, { key: 'text', limit: 200 }).map((r) => toItem(r.obj, r.indexes));
  }, [commands, query]);
  return (
    <Picker
      label="Command Palette"
      placeholder="Type the name of a command to run"
      items={items}
      status={items.length ? undefined : 'No matching commands'}
      onQuery={setQuery}
      onPick={(item) => {
        const command = commands.find((c) => c.id === item.id);
        onClose();
        if (command) onRun(command);
      }}
      onClose={onClose}
    />
  );
}
