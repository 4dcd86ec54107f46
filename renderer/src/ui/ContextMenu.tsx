import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';

export type MenuItem = { label: string; onSelect: () => void; disabled?: boolean; shortcut?: string } | 'separator';

export interface MenuProps {
  x: number;
  y: number;
  items: MenuItem[];
  onClose: () => void;
  /** Accessible name of the menu. */
  label: string;
}

/** A popup ARIA menu at a point; arrows/Home/End move, Enter picks, Escape or a click outside closes. */
export function ContextMenu({ x, y, items, onClose, label }: MenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: x, top: y });
  const [active, setActive] = useState(-1);
  const actionable = items
    .map((item, index) => (item !== 'separator' && !item.disabled ? index : -1))
    .filter((i) => i >= 0);

  useLayoutEffect(() => {
    const box = ref.current?.getBoundingClientRect();
    if (!box) return;
    // Keep the menu on screen.
    setPos({
      left: Math.max(4, Math.min(x, window.innerWidth - box.width - 4)),
      top: Math.max(4, Math.min(y, window.innerHeight - box.height - 4)),
    });
    ref.current?.focus();
  }, [x, y]);

  useEffect(() => {
    const outside = (event: MouseEvent) => {
      if (!ref.current?.contains(event.target as Node)) onClose();
    };
    const close = () => onClose();
    window.addEventListener('mousedown', outside, true);
    window.addEventListener('resize', close);
    window.addEventListener('blur', close);
    return () => {
      window.removeEventListener('mousedown', outside, true);
      window.removeEventListener('resize', close);
      window.removeEventListener('blur', close);
    };
  }, [onClose]);

  useEffect(() => {
    if (active >= 0) ref.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.focus();
  }, [active]);

  const pick = (index: number) => {
    const item = items[index];
    if (!item || item === 'separator' || item.disabled) return;
    onClose();
    item.onSelect();
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const at = actionable.indexOf(active);
    if (event.key === 'ArrowDown') setActive(actionable[(at + 1) % actionable.length]);
    else if (event.key === 'ArrowUp') setActive(actionable[(at - 1 + actionable.length) % actionable.length]);
    else if (event.key === 'Home') setActive(actionable[0]);
    else if (event.key === 'End') setActive(actionable[actionable.length - 1]);
    else if (event.key === 'Enter' || event.key === ' ') pick(active);
    else if (event.key === 'Escape' || event.key === 'Tab') onClose();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  // On the page's body: a menu opened inside a contained element (a notebook cell is `content-visibility: auto`,
  // which makes it the containing block of fixed descendants) would be placed and clipped by that element.
  return createPortal(
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      tabIndex={-1}
      className="menu"
      style={{ left: pos.left, top: pos.top }}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => e.preventDefault()}
    >
      {items.map((item, index) =>
        item === 'separator' ? (
          <div key={`sep-${index}`} role="separator" className="menu-separator" />
        ) : (
          <div
            key={item.label}
            role="menuitem"
            data-index={index}
            tabIndex={-1}
            aria-label={item.label}
            aria-keyshortcuts={item.shortcut}
            aria-disabled={item.disabled || undefined}
            className="menu-item"
            onMouseEnter={() => !item.disabled && setActive(index)}
            onClick={() => pick(index)}
          >
            <span className="menu-label">{item.label}</span>
            {/* The hint is CSS content so the item's text is exactly its label. */}
            {item.shortcut && <span className="menu-shortcut" aria-hidden data-shortcut={item.shortcut} />}
          </div>
        ),
      )}
    </div>,
    document.body,
  );
}

/** Ctrl on Linux/Windows, ⌘ on macOS, for shortcut hints and key handling. */
export const IS_MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = IS_MAC ? '⌘' : 'Ctrl+';
export function isModKey(event: { ctrlKey: boolean; metaKey: boolean }): boolean {
  return IS_MAC ? event.metaKey : event.ctrlKey;
}
