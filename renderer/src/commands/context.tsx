import { createContext, useContext, useLayoutEffect, useRef } from 'react';
import type { Command } from './registry';
import type { CommandRegistry } from './registry';

export const CommandsContext = createContext<CommandRegistry | null>(null);

export function useCommandRegistry(): CommandRegistry {
  const registry = useContext(CommandsContext);
  if (!registry) throw new Error('useCommandRegistry outside CommandsContext');
  return registry;
}

/**
 * Registers commands while the component is mounted. Titles, `when` and `run` are read fresh each time,
 * so they may close over the latest render; ids and keys are fixed for the component's life. Registered before
 * the browser paints (a layout effect): a key pressed as soon as the view shows finds its command.
 */
export function useCommands(commands: Command[]): void {
  const registry = useCommandRegistry();
  const latest = useRef(commands);
  latest.current = commands;
  const signature = commands.map((c) => `${c.id}\u0000${c.keys ?? ''}`).join('\u0001');
  useLayoutEffect(() => {
    const current = (id: string) => latest.current.find((c) => c.id === id);
    const disposers = latest.current.map((spec) =>
      registry.register({
        id: spec.id,
        keys: spec.keys,
        palette: spec.palette,
        get title() {
          return current(spec.id)?.title ?? spec.title;
        },
        get category() {
          return current(spec.id)?.category;
        },
        when: () => current(spec.id)?.when?.() ?? true,
        run: () => current(spec.id)?.run(),
      }),
    );
    return () => disposers.forEach((dispose) => dispose());
  }, [registry, signature]);
}
