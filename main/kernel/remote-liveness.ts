import { toDisposable, type IDisposable } from '../../shared/base/lifecycle';
import { askStatus, notAnsweringMessage } from './server-connection';
import type { JupyterConnection, JupyterServerStatus } from './server-types';

/**
 * A remote server is asked this often whether it answers, while a notebook has a kernel session on it. A refused
 * connection counts at once; a request that times out is asked again at once, and only two in a row count (a busy
 * server or a slow network is not an outage). So a server that stops answering is said so within 6.5 s.
 */
const LIVENESS_INTERVAL_MS = 1_500;
/** How long one liveness answer may take. */
const LIVENESS_TIMEOUT_MS = 2_500;

/** What the liveness watch reads of its server manager, and how it says the server's status changed. */
export interface WatchedServer {
  readonly connection: JupyterConnection | null;
  readonly status: JupyterServerStatus;
  readonly disposed: boolean;
  setStatus(status: JupyterServerStatus, message: string): void;
}

/**
 * Watches a remote server while held (a notebook's kernel session holds it): asked every few seconds, it turns
 * 'unreachable' when it stops answering and 'running' again when it answers.
 */
export class RemoteLiveness {
  /** Kernel sessions that want the remote server watched; no polling while there are none. */
  private watchers = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private probe: Promise<void> | null = null;

  constructor(private readonly server: WatchedServer) {}

  watch(): IDisposable {
    this.watchers += 1;
    this.schedule();
    return toDisposable(() => {
      this.watchers -= 1;
      if (this.watchers === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
    });
  }

  /** Stops asking (the manager is disposed). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.probe || this.watchers === 0 || this.server.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check();
    }, LIVENESS_INTERVAL_MS);
    // A watched server never keeps Kiln (or a test run) alive.
    this.timer.unref?.();
  }

  /** Asks the remote server now (one question at a time). */
  check(): Promise<void> {
    if (this.probe) return this.probe;
    const server = this.server;
    const connection = server.connection;
    if (!connection?.remote || server.disposed || (server.status !== 'running' && server.status !== 'unreachable')) {
      this.schedule();
      return Promise.resolve();
    }
    const probe = (async () => {
      let answer = await askStatus(connection.baseUrl, connection.token, LIVENESS_TIMEOUT_MS);
      if (answer === 'timed-out' && server.status === 'running')
        answer = await askStatus(connection.baseUrl, connection.token, LIVENESS_TIMEOUT_MS);
      const answers = answer === 'answered';
      // The server was switched or shut down meanwhile: this answer is about a server no longer in use.
      if (server.disposed || server.connection !== connection) return;
      if (!answers && server.status === 'running')
        server.setStatus('unreachable', notAnsweringMessage(connection.baseUrl));
      else if (answers && server.status === 'unreachable')
        server.setStatus('running', `Jupyter server at ${connection.baseUrl} is answering again`);
    })().finally(() => {
      this.probe = null;
      this.schedule();
    });
    this.probe = probe;
    return probe;
  }
}
