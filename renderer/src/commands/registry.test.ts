import { expect, it } from 'vitest';
import { formatKeys } from './keys';
import { CommandRegistry } from './registry';

const key = (
  k: string,
  mods: Partial<{ ctrl: boolean; shift: boolean; alt: boolean; meta: boolean }> = {},
  code?: string,
) => ({
  key: k,
  code,
  ctrlKey: Boolean(mods.ctrl),
  shiftKey: Boolean(mods.shift),
  altKey: Boolean(mods.alt),
  metaKey: Boolean(mods.meta),
});

it('runs the command bound to a key, with exact modifiers, Mod meaning Ctrl off the Mac', () => {
  const registry = new CommandRegistry(false);
  const ran: string[] = [];
  registry.register({ id: 'palette', title: 'Palette', keys: 'Mod+Shift+P', run: () => void ran.push('palette') });
  registry.register({ id: 'open', title: 'Open', keys: 'Mod+P', run: () => void ran.push('open') });
  expect(registry.handleKey(key('P', { ctrl: true, shift: true }, 'KeyP'))).toBe(true);
  expect(registry.handleKey(key('p', { ctrl: true }, 'KeyP'))).toBe(true);
  expect(registry.handleKey(key('p', { meta: true }, 'KeyP'))).toBe(false);
  expect(registry.handleKey(key('p'))).toBe(false);
  expect(ran).toEqual(['palette', 'open']);
});

it('uses Cmd for Mod on the Mac and reads the backquote by its code', () => {
  const registry = new CommandRegistry(true);
  const ran: string[] = [];
  registry.register({ id: 'save', title: 'Save', keys: 'Mod+S', run: () => void ran.push('save') });
  registry.register({ id: 'terminal', title: 'Terminal', keys: 'Ctrl+`', run: () => void ran.push('terminal') });
  expect(registry.handleKey(key('s', { ctrl: true }))).toBe(false);
  expect(registry.handleKey(key('s', { meta: true }))).toBe(true);
  expect(registry.handleKey(key('Dead', { ctrl: true }, 'Backquote'))).toBe(true);
  expect(ran).toEqual(['save', 'terminal']);
});

it('skips a command whose `when` does not hold, and leaves the key to others', () => {
  const registry = new CommandRegistry(false);
  let treeFocused = false;
  const ran: string[] = [];
  registry.register({
    id: 'rename',
    title: 'Rename',
    keys: 'F2',
    when: () => treeFocused,
    run: () => void ran.push('rename'),
  });
  expect(registry.handleKey(key('F2'))).toBe(false);
  expect(registry.available().map((c) => c.id)).toEqual([]);
  treeFocused = true;
  expect(registry.handleKey(key('F2'))).toBe(true);
  expect(ran).toEqual(['rename']);
  expect(registry.available().map((c) => c.id)).toEqual(['rename']);
});

it('runs a chord only when its second key follows in time', () => {
  const registry = new CommandRegistry(false);
  const ran: string[] = [];
  registry.register({ id: 'delete-cell', title: 'Delete Cell', keys: 'D D', run: () => void ran.push('dd') });
  expect(registry.handleKey(key('d'), 1000)).toBe(true);
  expect(registry.handleKey(key('d'), 2000)).toBe(true);
  expect(ran).toEqual([]);
  expect(registry.handleKey(key('d'), 2300)).toBe(true);
  expect(ran).toEqual(['dd']);
});

it('unregisters, and a later registration of the same id replaces the earlier one', () => {
  const registry = new CommandRegistry(false);
  const dispose = registry.register({ id: 'x', title: 'First', run: () => undefined });
  registry.register({ id: 'x', title: 'Second', run: () => undefined });
  dispose();
  expect(registry.get('x')?.title).toBe('Second');
});

it('formats bindings for each platform', () => {
  expect(formatKeys('Mod+Shift+P', false)).toBe('Ctrl+Shift+P');
  expect(formatKeys('Mod+Shift+P', true)).toBe('⇧⌘P');
  expect(formatKeys('D D', false)).toBe('D D');
  expect(formatKeys('Ctrl+`', false)).toBe('Ctrl+`');
});
