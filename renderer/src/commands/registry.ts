import { Emitter } from '../../../shared/base/event';
import { matchesStroke, parseKeys, type KeyEventLike, type KeyStroke } from './keys';

export interface Command {
  /** Stable id, e.g. `file.save`. */
  id: string;
  /** What the palette shows and searches, e.g. "Show hidden files". */
  title: string;
  /** Groups the palette's list: "File", "View", "Notebook". */
  category?: string;
  /** The key binding (see keys.ts); absent for palette-only commands. */
  keys?: string;
  /** False for a second key of a command the palette already lists. */
  palette?: boolean;
  /** Where the command applies now (e.g. "the tree has focus"); its key does nothing elsewhere. */
  when?: () => boolean;
  run: () => void | Promise<void>;
}

/** How long the second key of a chord (`D D`) may follow the first. */
const CHORD_MS = 800;

/**
 * The one list of commands: every key binding dispatches through it and the command palette lists it.
 * Views register their commands while mounted; a key runs the first registered command whose binding
 * matches and whose `when` holds.
 */
export class CommandRegistry {
  private readonly commands = new Map<string, { command: Command; strokes: KeyStroke[] }>();
  private readonly changed = new Emitter<void>();
  private chord: { first: KeyStroke; at: number } | null = null;

  constructor(private readonly isMac: boolean) {}

  register(command: Command): () => void {
    const entry = { command, strokes: command.keys ? parseKeys(command.keys, this.isMac) : [] };
    this.commands.set(command.id, entry);
    this.changed.fire();
    return () => {
      if (this.commands.get(command.id) === entry) {
        this.commands.delete(command.id);
        this.changed.fire();
      }
    };
  }

  /** Every command that applies now (as seen from where focus is), in registration order. */
  available(): Command[] {
    return [...this.commands.values()].map((e) => e.command).filter((c) => c.when?.() ?? true);
  }

  get(id: string): Command | undefined {
    return this.commands.get(id)?.command;
  }

  async run(id: string): Promise<void> {
    await this.commands.get(id)?.command.run();
  }

  subscribe = (listener: () => void): (() => void) => {
    const subscription = this.changed.event(listener);
    return () => void subscription.dispose();
  };

  /** Runs the command bound to this key, if any applies; true when the key was used. */
  handleKey(event: KeyEventLike, now = Date.now()): boolean {
    const pending = this.chord && now - this.chord.at < CHORD_MS ? this.chord.first : null;
    this.chord = null;
    for (const { command, strokes } of this.commands.values()) {
      if (!strokes.length) continue;
      const [first, second] = strokes;
      const complete = second
        ? pending !== null && sameStroke(pending, first) && matchesStroke(event, second)
        : matchesStroke(event, first);
      if (complete && (command.when?.() ?? true)) {
        void Promise.resolve(command.run()).catch((err: unknown) => console.error(`Command ${command.id} failed`, err));
        return true;
      }
    }
    // The first key of a chord is taken only where a chord starting with it applies.
    for (const { command, strokes } of this.commands.values()) {
      if (strokes.length === 2 && matchesStroke(event, strokes[0]) && (command.when?.() ?? true)) {
        this.chord = { first: strokes[0], at: now };
        return true;
      }
    }
    return false;
  }
}

function sameStroke(a: KeyStroke, b: KeyStroke): boolean {
  return a.key === b.key && a.ctrl === b.ctrl && a.shift === b.shift && a.alt === b.alt && a.meta === b.meta;
}
