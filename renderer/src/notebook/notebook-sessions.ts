import type { KilnBridge } from '../../../shared/contract';
// A type only: the editor's index loads Monaco, which this store (and its Node unit test) never needs.
import type { OpenFilesStore } from '../editor';
import { NotebookSession } from './notebook-session';

/**
 * The window's notebook sessions, one per notebook tab (keyed by the tab's id, which stays through
 * renames and moves). A session answers for its tab from first show until the tab closes: Save and
 * the dirty dot go through the notebook main holds, and closing the tab closes it there.
 */
export class NotebookSessions {
  private readonly sessions = new Map<number, { session: NotebookSession; release: () => void }>();

  constructor(
    private readonly bridge: KilnBridge,
    private readonly openFiles: OpenFilesStore,
  ) {}

  /** The tab's session, opening the notebook the first time the tab shows it. */
  sessionFor(tabId: number, path: string): NotebookSession {
    const held = this.sessions.get(tabId);
    if (held) return held.session;
    const session = new NotebookSession(this.bridge, path);
    const giveBack = this.openFiles.claim(path, { save: () => session.save(), closed: () => this.close(tabId) });
    const offDirty = session.subscribe(() => this.openFiles.setDirty(session.path, session.getState().dirty));
    this.sessions.set(tabId, {
      session,
      release: () => {
        offDirty();
        giveBack();
      },
    });
    void session.load();
    return session;
  }

  /** The tab shows its file some other way (as text): the session ends and the tab is an ordinary file tab. */
  release(tabId: number): void {
    const held = this.sessions.get(tabId);
    held?.release();
    this.close(tabId);
  }

  private close(tabId: number): void {
    const held = this.sessions.get(tabId);
    if (!held) return;
    this.sessions.delete(tabId);
    held.session.dispose();
    void held.session.close();
  }
}
