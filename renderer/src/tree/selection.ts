import { Store } from '../base';

export interface SelectionState {
  selected: ReadonlySet<string>;
  /** The row keyboard focus is on (aria-activedescendant); may be outside the selection. */
  focused: string | null;
}

/**
 * Which rows are selected and focused, as a file manager keeps them: a click selects one row and makes it
 * the anchor, Ctrl/Cmd+click toggles one, Shift extends from the anchor.
 */
export class TreeSelection extends Store<SelectionState> {
  private anchor: string | null = null;

  constructor() {
    super({ selected: new Set(), focused: null });
  }

  has(path: string): boolean {
    return this.state.selected.has(path);
  }

  get focused(): string | null {
    return this.state.focused;
  }

  get hasAnchor(): boolean {
    return this.anchor !== null;
  }

  /** What an action applies to: the selection, else the focused row. */
  targets(): string[] {
    const { selected, focused } = this.state;
    return selected.size ? [...selected] : focused ? [focused] : [];
  }

  /** Exactly these paths, focus on the last (what an operation made or moved). */
  select(paths: string[]): void {
    this.anchor = paths[0] ?? null;
    this.set({ selected: new Set(paths), focused: paths[paths.length - 1] ?? null });
  }

  /** Ctrl/Cmd+click: adds or removes one row, which becomes the anchor. */
  toggle(path: string): void {
    const selected = new Set(this.state.selected);
    if (!selected.delete(path)) selected.add(path);
    this.anchor = path;
    this.set({ selected, focused: path });
  }

  /** Shift+click or Shift+arrow: the rows from the anchor to `path` (`between` lists them in display order). */
  extendTo(path: string, between: (from: string, to: string) => string[]): void {
    if (this.anchor === null) return this.select([path]);
    this.set({ selected: new Set(between(this.anchor, path)), focused: path });
  }

  /** Right-click: a row already in the selection keeps it; any other row is selected alone. */
  pointAt(path: string | null): void {
    if (path === null) this.clear();
    else if (this.state.selected.has(path)) this.set({ focused: path });
    else this.select([path]);
  }

  selectAll(paths: string[]): void {
    this.set({ selected: new Set(paths) });
  }

  /** Escape: only the focused row stays selected. */
  collapse(): void {
    const { focused } = this.state;
    this.set({ selected: new Set(focused ? [focused] : []) });
  }

  clear(): void {
    this.set({ selected: new Set(), focused: null });
  }
}
