import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import type { KilnBridge } from '../../../shared/contract';
import { Store, perBridge } from '../base';

export interface TerminalTab {
  id: string;
  title: string;
  xterm: Terminal;
  fit: FitAddon;
}

export interface TerminalsState {
  tabs: TerminalTab[];
  active: string | null;
  open: boolean;
}

/** Acknowledge drawn output in chunks of about this size (one request per chunk, not per write). */
const ACK_CHARS = 16 * 1024;
const ACK_DELAY_MS = 30;

/**
 * The terminals of the window: one xterm per shell in main. Output is written as it arrives and
 * acknowledged once drawn, which is what lets main pause a shell that outruns the screen.
 */
export class TerminalStore extends Store<TerminalsState> {
  private readonly acks = new Map<string, { chars: number; timer: ReturnType<typeof setTimeout> | null }>();
  private count = 0;

  constructor(private readonly bridge: KilnBridge) {
    super({ tabs: [], active: null, open: false });
    this.own(
      bridge.on('terminal.data', ({ id, data }) => {
        const tab = this.tab(id);
        tab?.xterm.write(data, () => this.drawn(id, data.length));
      }),
      bridge.on('terminal.exit', ({ id }) => this.closed(id)),
    );
  }

  /** Shows the panel (starting a terminal if there is none) or hides it. */
  async toggle(): Promise<void> {
    if (this.state.open) this.set({ open: false });
    else if (!this.state.tabs.length) await this.create();
    else this.set({ open: true });
  }

  async create(): Promise<TerminalTab> {
    const xterm = new Terminal({
      fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
      fontSize: 13,
      scrollback: 10_000,
      cursorBlink: true,
      allowProposedApi: false,
    });
    const fit = new FitAddon();
    xterm.loadAddon(fit);
    const { id, shell } = await this.bridge.request('terminal.create', { cols: 80, rows: 24 });
    const name = shell.split(/[\\/]/).pop() ?? 'shell';
    const tab: TerminalTab = { id, title: `${name} ${++this.count}`, xterm, fit };
    xterm.onData((data) => void this.bridge.request('terminal.input', { id, data }).catch(() => undefined));
    xterm.onResize(
      ({ cols, rows }) => void this.bridge.request('terminal.resize', { id, cols, rows }).catch(() => undefined),
    );
    this.set({ tabs: [...this.state.tabs, tab], active: id, open: true });
    return tab;
  }

  activate(id: string): void {
    if (this.tab(id)) this.set({ active: id, open: true });
  }

  /** Ends the shell; its tab closes when main reports the exit. */
  async kill(id: string): Promise<void> {
    await this.bridge.request('terminal.kill', { id }).catch(() => undefined);
    this.closed(id);
  }

  override dispose(): void {
    for (const tab of this.state.tabs) void this.kill(tab.id);
    super.dispose();
  }

  private tab(id: string): TerminalTab | undefined {
    return this.state.tabs.find((t) => t.id === id);
  }

  private closed(id: string): void {
    const index = this.state.tabs.findIndex((t) => t.id === id);
    if (index < 0) return;
    const tab = this.state.tabs[index];
    const tabs = this.state.tabs.filter((t) => t.id !== id);
    const active = this.state.active === id ? ((tabs[index] ?? tabs[index - 1])?.id ?? null) : this.state.active;
    this.acks.delete(id);
    this.set({ tabs, active, open: this.state.open && tabs.length > 0 });
    tab.xterm.dispose();
  }

  private drawn(id: string, chars: number): void {
    let ack = this.acks.get(id);
    if (!ack) this.acks.set(id, (ack = { chars: 0, timer: null }));
    ack.chars += chars;
    const send = () => {
      const pending = this.acks.get(id);
      if (!pending?.chars) return;
      if (pending.timer) clearTimeout(pending.timer);
      pending.timer = null;
      void this.bridge.request('terminal.ack', { id, chars: pending.chars }).catch(() => undefined);
      pending.chars = 0;
    };
    if (ack.chars >= ACK_CHARS) send();
    else ack.timer ??= setTimeout(send, ACK_DELAY_MS);
  }
}

export const useTerminalStore = perBridge((bridge) => new TerminalStore(bridge));
