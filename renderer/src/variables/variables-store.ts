import type { KernelStatus, KilnBridge, Variable, VariableRef, VariablesMiss } from '../../../shared/contract';
import { errorText, perBridge, Store } from '../base';
import { formatBytes } from '../ui';

export type SortColumn = 'name' | 'type' | 'shape' | 'value' | 'size';
export interface SortOrder {
  column: SortColumn;
  descending: boolean;
}

/** The children of an expanded row, as far as they were fetched ("more…" fetches the next page). */
export interface Expansion {
  children: Variable[];
  total: number;
  loading: boolean;
  /** Why they could not be listed (the variable is gone, a cell is running). */
  message: string | null;
}

export interface VariablesState {
  /** Whether the region shows (the toolbar's Variables button and "Toggle Variables" flip it). */
  open: boolean;
  /** The notebook whose kernel it shows: the active tab's, when that is a notebook. */
  path: string | null;
  /** Modules, functions, classes and IPython's own names too. */
  all: boolean;
  filter: string;
  sort: SortOrder;
  /** The last list the kernel gave (kept while a cell runs), null before one. */
  variables: Variable[] | null;
  total: number;
  /** Why there is no (fresh) list: no kernel, not Python, a cell running...; null when the list is current. */
  message: string | null;
  /** The miss's kind, for the message's look ('busy' keeps the list under it). */
  miss: VariablesMiss['status'] | null;
  loading: boolean;
  /** Expanded rows by refKey. */
  expanded: ReadonlyMap<string, Expansion>;
  /** The selected top-level frame, series or array and its printed value (the value pane), or null. */
  selected: SelectedValue | null;
  /** The notebook is paused in Debug Cell: the frame's variables are the Debugger panel's (debugger.state events). */
  paused: boolean;
}

export interface SelectedValue {
  name: string;
  /** As pandas or NumPy print it; null while it is asked or when it could not be. */
  text: string | null;
  message: string | null;
  loading: boolean;
}

/** The types whose printed value the pane shows: pandas and NumPy bound their own printing (display options). */
export function showsValue(v: Variable): boolean {
  return v.ref.length === 1 && ['DataFrame', 'Series', 'ndarray'].includes(v.type);
}

export function refKey(ref: VariableRef): string {
  return JSON.stringify(ref);
}

/** Kernel states in which nothing can be asked (main answers at once with why). */
const UNAVAILABLE: readonly KernelStatus[] = ['none', 'starting', 'restarting', 'dead', 'disconnected'];

/**
 * The Variables view's state for the window: the active notebook's kernel variables, fetched when the view
 * opens, when the notebook changes, when main says a run ended (notebook.variablesChanged) and when the
 * kernel comes back from a start or restart; never polled, and nothing asked while the view is closed.
 */
export class VariablesStore extends Store<VariablesState> {
  /** Drops answers to requests a newer one replaced (another notebook, another filter). */
  private generation = 0;
  private lastStatus: KernelStatus | null = null;

  constructor(private readonly bridge: KilnBridge) {
    super({
      open: false,
      path: null,
      all: false,
      filter: '',
      sort: { column: 'name', descending: false },
      variables: null,
      total: 0,
      message: null,
      miss: null,
      loading: false,
      expanded: new Map(),
      selected: null,
      paused: false,
    });
    this.own(
      bridge.on('debugger.state', ({ path, status }) => {
        if (path === this.state.path) this.set({ paused: status === 'paused' });
      }),
      bridge.on('notebook.variablesChanged', ({ path }) => {
        if (path === this.state.path) void this.refresh();
      }),
      bridge.on('notebook.kernelStatus', ({ path, kernel }) => {
        if (path !== this.state.path) return;
        const was = this.lastStatus;
        this.lastStatus = kernel.status;
        // Gone, going or back: the list is stale. Busy and idle around our own requests change nothing.
        const cameBack = kernel.status === 'idle' && was !== null && UNAVAILABLE.includes(was);
        if (UNAVAILABLE.includes(kernel.status) ? was !== kernel.status : cameBack) void this.refresh();
      }),
    );
  }

  toggle(): void {
    this.set({ open: !this.state.open });
    if (this.state.open) void this.refresh();
  }

  hide(): void {
    this.set({ open: false });
  }

  /** Follows the active tab: a notebook's path, or null for anything else. */
  follow(path: string | null): void {
    if (path === this.state.path) return;
    this.lastStatus = null;
    this.set({
      path,
      variables: null,
      total: 0,
      message: null,
      miss: null,
      expanded: new Map(),
      selected: null,
      paused: false,
    });
    void this.refresh();
  }

  setFilter(filter: string): void {
    this.set({ filter });
  }

  setShowAll(all: boolean): void {
    this.set({ all });
    void this.refresh();
  }

  /** Sorts by `column`; the same column again reverses the order. */
  sortBy(column: SortColumn): void {
    const { sort } = this.state;
    this.set({ sort: { column, descending: sort.column === column ? !sort.descending : false } });
  }

  async refresh(): Promise<void> {
    const { open, path, all } = this.state;
    if (!open || !path) return;
    const generation = ++this.generation;
    this.set({ loading: true });
    try {
      const result = await this.bridge.request('notebook.variables', { path, all });
      if (generation !== this.generation) return;
      if (result.status === 'ok') {
        const names = new Set(result.variables.map((v) => v.name));
        // An expanded variable that is gone closes; the others are fetched again below.
        const expanded = new Map([...this.state.expanded].filter(([key]) => names.has(JSON.parse(key)[0] as string)));
        const selected = result.variables.find((v) => v.name === this.state.selected?.name && showsValue(v));
        this.set({
          variables: result.variables,
          total: result.total,
          message: null,
          miss: null,
          loading: false,
          expanded,
          selected: selected ? this.state.selected : null,
        });
        for (const key of expanded.keys()) void this.loadChildren(JSON.parse(key) as VariableRef, 0, generation);
        // The selected value may have changed with the run: asked again, as the list was.
        if (selected) void this.loadValue(selected.name, generation);
      } else if (result.status === 'cancelled') {
        // Another window's request for this notebook replaced ours (one kernel, one waiting request): it answers.
        this.set({ loading: false });
      } else {
        // A cell running keeps the last list under the note; anything else has no list to show.
        const keep = result.status === 'busy' ? this.state.variables : null;
        this.set({ variables: keep, message: result.message, miss: result.status, loading: false });
      }
    } catch (err) {
      if (generation !== this.generation) return;
      this.set({ variables: null, message: errorText(err), miss: 'error', loading: false });
    }
  }

  /** Selects a row: a top-level frame, series or array shows its printed value below the grid; others close it. */
  select(variable: Variable): void {
    if (!showsValue(variable)) {
      if (this.state.selected) this.set({ selected: null });
      return;
    }
    if (this.state.selected?.name === variable.name) return;
    this.set({ selected: { name: variable.name, text: null, message: null, loading: true } });
    void this.loadValue(variable.name, this.generation);
  }

  private async loadValue(name: string, generation: number): Promise<void> {
    const { path } = this.state;
    if (!path) return;
    const patch = (value: Partial<SelectedValue>) => {
      if (generation !== this.generation || this.state.selected?.name !== name) return;
      this.set({ selected: { ...this.state.selected, ...value } });
    };
    patch({ loading: true });
    try {
      const result = await this.bridge.request('notebook.variableValue', { path, name });
      if (result.status === 'ok') patch({ text: result.text, message: null, loading: false });
      else if (result.status !== 'cancelled') patch({ message: result.message, loading: false });
    } catch (err) {
      patch({ message: errorText(err), loading: false });
    }
  }

  /** Expands or collapses the row at `ref`. */
  toggleRow(ref: VariableRef): void {
    const expanded = new Map(this.state.expanded);
    const key = refKey(ref);
    if (expanded.has(key)) {
      // Its expanded descendants close with it.
      for (const other of [...expanded.keys()])
        if (other === key || other.startsWith(key.slice(0, -1) + ',')) expanded.delete(other);
      this.set({ expanded });
      return;
    }
    expanded.set(key, { children: [], total: 0, loading: true, message: null });
    this.set({ expanded });
    void this.loadChildren(ref, 0, this.generation);
  }

  /** The next page of an expanded row's children. */
  more(ref: VariableRef): void {
    const current = this.state.expanded.get(refKey(ref));
    if (!current || current.loading) return;
    this.patchExpansion(ref, { loading: true });
    void this.loadChildren(ref, current.children.length, this.generation);
  }

  private async loadChildren(ref: VariableRef, offset: number, generation: number): Promise<void> {
    const { path } = this.state;
    if (!path) return;
    try {
      const result = await this.bridge.request('notebook.expandVariable', { path, ref, offset });
      if (generation !== this.generation || !this.state.expanded.has(refKey(ref))) return;
      if (result.status === 'ok') {
        const before = offset === 0 ? [] : (this.state.expanded.get(refKey(ref))?.children ?? []);
        this.patchExpansion(ref, {
          children: [...before, ...result.children],
          total: result.total,
          loading: false,
          message: null,
        });
      } else {
        this.patchExpansion(ref, { loading: false, message: result.message });
      }
    } catch (err) {
      this.patchExpansion(ref, { loading: false, message: errorText(err) });
    }
  }

  private patchExpansion(ref: VariableRef, patch: Partial<Expansion>): void {
    const key = refKey(ref);
    const current = this.state.expanded.get(key);
    if (!current) return;
    const expanded = new Map(this.state.expanded);
    expanded.set(key, { ...current, ...patch });
    this.set({ expanded });
  }
}

export const useVariablesStore = perBridge((bridge) => new VariablesStore(bridge));

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The top-level rows to show: filtered by name (case-insensitive substring), sorted by the column. */
export function visibleVariables(variables: readonly Variable[], filter: string, sort: SortOrder): Variable[] {
  const needle = filter.trim().toLowerCase();
  const rows = needle ? variables.filter((v) => v.name.toLowerCase().includes(needle)) : [...variables];
  const by = (v: Variable): string | number | null => {
    switch (sort.column) {
      case 'name':
        return v.name;
      case 'type':
        return v.type;
      case 'shape':
        return v.shape;
      case 'value':
        return v.summary;
      case 'size':
        return v.size;
    }
  };
  rows.sort((a, b) => {
    const x = by(a);
    const y = by(b);
    // Rows without a value (no shape, no size) go last either way.
    if (x === null || y === null) return x === y ? collator.compare(a.name, b.name) : x === null ? 1 : -1;
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return (sort.descending ? -order : order) || collator.compare(a.name, b.name);
  });
  return rows;
}

/** Bytes as people read them: 28 B, 1.5 KB, 76.3 MB. */
export function formatSize(bytes: number | null): string {
  if (bytes === null) return '';
  return formatBytes(bytes);
}
