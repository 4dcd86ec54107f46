/**
 * Key bindings as text: `Mod+Shift+P`, `F2`, `Ctrl+\``, or a two-key chord `D D`. `Mod` is Ctrl on
 * Linux and Windows, ⌘ on macOS, so one binding serves every platform.
 */
export interface KeyStroke {
  key: string;
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
}

export interface KeyEventLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** Parses a binding into its strokes (two for a chord). */
export function parseKeys(binding: string, isMac: boolean): KeyStroke[] {
  return binding
    .split(' ')
    .filter(Boolean)
    .map((stroke) => {
      const parts = stroke.split('+');
      const key = parts.pop() || '+';
      const mods = new Set(parts.map((p) => p.toLowerCase()));
      return {
        key: key.toLowerCase(),
        ctrl: mods.has('ctrl') || (mods.has('mod') && !isMac),
        meta: mods.has('meta') || mods.has('cmd') || (mods.has('mod') && isMac),
        shift: mods.has('shift'),
        alt: mods.has('alt'),
      };
    });
}

/** Layout-independent names for the few keys whose `key` changes with Shift or the keyboard layout. */
const CODE_KEYS: Record<string, string> = {
  Backquote: '`',
  Slash: '/',
  Backslash: '\\',
  Comma: ',',
  Period: '.',
  Minus: '-',
};

function keyOf(event: KeyEventLike): string {
  if (event.code && CODE_KEYS[event.code]) return CODE_KEYS[event.code];
  if (event.code?.startsWith('Key') && event.code.length === 4) return event.code.slice(3).toLowerCase();
  return event.key.toLowerCase();
}

export function matchesStroke(event: KeyEventLike, stroke: KeyStroke): boolean {
  return (
    keyOf(event) === stroke.key &&
    event.ctrlKey === stroke.ctrl &&
    event.metaKey === stroke.meta &&
    event.shiftKey === stroke.shift &&
    event.altKey === stroke.alt
  );
}

const MAC_SYMBOLS: Record<string, string> = { ctrl: '⌃', alt: '⌥', shift: '⇧', meta: '⌘' };
const NAMES: Record<string, string> = {
  arrowup: '↑',
  arrowdown: '↓',
  enter: 'Enter',
  escape: 'Esc',
  delete: 'Delete',
  backspace: 'Backspace',
  ' ': 'Space',
};

/** How a binding reads in menus and the palette: `Ctrl+Shift+P` here, `⇧⌘P` on a Mac. */
export function formatKeys(binding: string, isMac: boolean): string {
  return parseKeys(binding, isMac)
    .map((s) => {
      const key = NAMES[s.key] ?? (s.key.length === 1 ? s.key.toUpperCase() : s.key[0].toUpperCase() + s.key.slice(1));
      if (isMac) {
        return `${s.ctrl ? MAC_SYMBOLS.ctrl : ''}${s.alt ? MAC_SYMBOLS.alt : ''}${s.shift ? MAC_SYMBOLS.shift : ''}${s.meta ? MAC_SYMBOLS.meta : ''}${key}`;
      }
      return [s.ctrl && 'Ctrl', s.meta && 'Meta', s.alt && 'Alt', s.shift && 'Shift', key].filter(Boolean).join('+');
    })
    .join(' ');
}
