/**
 * The Python config file Kiln passes to its embedded `jupyter server --config=...`.
 *
 * 1. TCP_NODELAY on kernel WebSockets. Tornado leaves Nagle's algorithm on, so each small kernel message
 *    waits for the previous ACK (delayed ACK, ~40 ms) before it is sent. The kernel channel handler's
 *    `open()` is wrapped to call `self.set_nodelay(True)` — the place Tornado's docs name for it — for every
 *    class that has played that role across jupyter_server 1.x and 2.x. Each step is guarded so a server
 *    version without one of these classes still starts.
 * 2. The token comes from an owner-only file named by KILN_JUPYTER_TOKEN_FILE, never the command line, which
 *    every user can read in /proc. jupyter_server 2 moved the setting to IdentityProvider.
 * 3. Exit when Kiln is gone. If Kiln is killed without a chance to stop the server, the server notices its
 *    parent died and shuts itself (and its kernels) down, so no orphans remain.
 */
export function serverConfigSource(): string {
  return String.raw`# Written by Kiln for its embedded Jupyter server. Safe to delete; Kiln rewrites it at start.
import functools as _kiln_functools
import importlib as _kiln_importlib
import logging as _kiln_logging
import os as _kiln_os
import signal as _kiln_signal
import threading as _kiln_threading
import time as _kiln_time

_KILN_HANDLERS = [
    ("jupyter_server.services.kernels.handlers", "ZMQChannelsHandler"),
    ("jupyter_server.services.kernels.websocket", "KernelWebsocketHandler"),
    ("jupyter_server.services.kernels.connection.channels", "ZMQChannelsWebsocketConnection"),
    ("jupyter_server.base.zmqhandlers", "WebSocketMixin"),
    ("jupyter_server.base.websocket", "WebSocketMixin"),
    ("notebook.services.kernels.handlers", "ZMQChannelsHandler"),
    ("notebook.base.zmqhandlers", "WebSocketMixin"),
]


def _kiln_patch_nodelay():
    patched = []
    for module_name, class_name in _KILN_HANDLERS:
        try:
            cls = getattr(_kiln_importlib.import_module(module_name), class_name)
            original = cls.__dict__.get("open")
            if original is None or getattr(original, "_kiln_nodelay", False):
                continue

            def _make(original):
                @_kiln_functools.wraps(original)
                def open(self, *args, **kwargs):
                    try:
                        self.set_nodelay(True)
                    except Exception:
                        pass
                    return original(self, *args, **kwargs)

                open._kiln_nodelay = True
                return open

            cls.open = _make(original)
            patched.append(module_name + "." + class_name)
        except Exception:
            pass
    _kiln_logging.getLogger("ServerApp").info("Kiln: TCP_NODELAY on for kernel websockets via %s", ", ".join(patched) or "nothing")
    print("KILN_NODELAY " + (",".join(patched) or "none"), flush=True)


def _kiln_watch_parent():
    try:
        parent = int(_kiln_os.environ.get("KILN_PARENT_PID", "0"))
    except ValueError:
        return
    if parent <= 0:
        return

    def watch():
        while True:
            _kiln_time.sleep(2.0)
            try:
                _kiln_os.kill(parent, 0)
            except ProcessLookupError:
                # Graceful stop: the server shuts its kernels down on SIGTERM.
                _kiln_os.kill(_kiln_os.getpid(), _kiln_signal.SIGTERM)
                return
            except Exception:
                pass

    _kiln_threading.Thread(target=watch, name="kiln-parent-watch", daemon=True).start()


def _kiln_token():
    token_file = _kiln_os.environ.get("KILN_JUPYTER_TOKEN_FILE")
    if not token_file:
        return
    with open(token_file) as f:
        token = f.read().strip()
    try:
        import jupyter_server
        major = int(jupyter_server.__version__.split(".")[0])
    except Exception:
        major = 1
    if major >= 2:
        c.IdentityProvider.token = token
    else:
        c.ServerApp.token = token


_kiln_token()
try:
    _kiln_patch_nodelay()
except Exception:
    pass
try:
    _kiln_watch_parent()
except Exception:
    pass
`;
}
