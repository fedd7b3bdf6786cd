"""A stand-in target made of one `http.server` handler class: a target that misbehaves in one precise way, served on
a free loopback port in a thread for the time of a `with` block."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """The base URL (http://127.0.0.1:PORT) of a server answering with `handler`; stopped when the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class ServesNothing(BaseHTTPRequestHandler):
    """A target with no data: every read an empty envelope, every write refused (a reachable target for runs that
    stop early, or that find nothing to exercise)."""

    def do_GET(self):
        body = b'{"items": [], "nextToken": null}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _refused(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PATCH = do_PUT = do_DELETE = _refused

    def log_message(self, *args):
        pass
