import { useState } from 'react';
import { CommandPalette } from './CommandPalette';
import { useCommandRegistry, useCommands } from './context';
import type { Command } from './registry';

/** Ctrl/Cmd+Shift+P opens the palette over what applies where focus was; running restores that focus first. */
export function CommandPaletteHost() {
  const registry = useCommandRegistry();
  const [open, setOpen] = useState<{ commands: Command[]; returnTo: HTMLElement | null } | null>(null);
  useCommands([
    {
      id: 'workbench.commandPalette',
      title: 'Show All Commands',
      category: 'View',
      keys: 'Mod+Shift+P',
      run: () => {
        const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        setOpen({
          commands: registry.available().filter((c) => c.id !== 'workbench.commandPalette' && c.palette !== false),
          returnTo,
        });
      },
    },
  ]);
  if (!open) return null;
  return (
    <CommandPalette
      commands={open.commands}
      onClose={() => {
        setOpen(null);
        open.returnTo?.focus();
      }}
      onRun={(command) =>
        void Promise.resolve(command.run()).catch((err: unknown) => console.error(`Command ${command.id} failed`, err))
      }
    />
  );
}
