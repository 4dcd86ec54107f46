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
 * 4. A lighter kernel activity watch on jupyter_server 1.x. The server reads every IOPub message of every
 *    kernel to keep its last activity and execution state; 1.x checks each message's signature and unpacks
 *    all of it, on the same two cores the kernel runs on, in the middle of every execution. Kiln's watch keeps
 *    the same two fields from the raw frames: the time of every message, the state of status messages.
 *    (2.x tracks states per message type; it is left as it is.)
 */
export function serverConfigSource(): string {
  return String.raw`# Written by Kiln for its embedded Jupyter server. Safe to delete; Kiln rewrites it at start.
import functools as _kiln_functools
import importlib as _kiln_importlib
import json as _kiln_json
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


def _kiln_lighter_activity_watch():
    import jupyter_server
    from jupyter_server.services.kernels import kernelmanager

    if int(jupyter_server.__version__.split(".")[0]) != 1:
        return

    def start_watching_activity(self, kernel_id):
        kernel = self._kernels[kernel_id]
        kernel.execution_state = "starting"
        kernel.reason = ""
        kernel.last_activity = kernelmanager.utcnow()
        kernel._activity_stream = kernel.connect_iopub()

        def record_activity(msg_list):
            self.last_kernel_activity = kernel.last_activity = kernelmanager.utcnow()
            try:
                # identities, delimiter, signature, header, parent header, metadata, content
                start = msg_list.index(b"<IDS|MSG>")
                if b'"status"' in msg_list[start + 2]:
                    state = _kiln_json.loads(msg_list[start + 5]).get("execution_state")
                    if state:
                        kernel.execution_state = state
            except Exception:
                pass

        kernel._activity_stream.on_recv(record_activity)

    kernelmanager.MappingKernelManager.start_watching_activity = start_watching_activity
    print("KILN_ACTIVITY_WATCH lighter", flush=True)


_kiln_token()
try:
    _kiln_lighter_activity_watch()
except Exception:
    pass
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
