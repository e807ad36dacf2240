#!/usr/bin/env python3
# A loopback HTTP receiver for the upload tests.  Records every request
# (method, path, headers, body) as one JSON object a line in LOG, and
# answers by a script of responses, one per request, the last repeated:
#   http_receiver.py PORTFILE LOG [RESPONSE...]
# RESPONSE: "204", "500", "429:RETRY_AFTER", "slow:SECONDS" (answers 204
# after SECONDS), "reset" (closes the connection without an answer),
# "400:MESSAGE".  Binds 127.0.0.1 on a free port (or $RECV_PORT) and writes
# it to PORTFILE.
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

portfile, log = sys.argv[1], sys.argv[2]
script = sys.argv[3:] or ["204"]
count = [0]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        with open(log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "headers": dict(self.headers.items()),
                                "body": body.decode("utf-8", "surrogateescape")}) + "\n")
        with lock:
            step = script[min(count[0], len(script) - 1)]
            count[0] += 1
        if step == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
            return
        code, extra = (step.split(":", 1) + [""])[:2]
        headers = {}
        msg = b""
        if code == "slow":
            time.sleep(float(extra))
            code = "204"
        elif code == "429" and extra:
            headers["Retry-After"] = extra
        elif extra:
            msg = extra.encode()
        self.send_response(int(code))
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)

    do_POST = do_PUT = handle_any


srv = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("RECV_PORT", "0"))), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
