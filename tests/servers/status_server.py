"""An HTTP server that answers every request with one status (default 401) and a short body:
an MCP endpoint behind authentication, as a gateway without credentials sees it."""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--status", type=int, default=401)
args = parser.parse_args()


class Handler(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = b'{"error": "missing bearer token"}'
        self.send_response(args.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if args.status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *a: object) -> None:
        pass


ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
