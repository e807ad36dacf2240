#!/usr/bin/env python3
# A loopback HTTP receiver for the upload tests.  Records every request
# (method, path, headers, body, and the status it answered) as one JSON
# object a line in LOG, and answers by a script of responses, one per
# request, the last repeated:
#   http_receiver.py [--codespeed ENV[,ENV...]] [--json] PORTFILE LOG [RESPONSE...]
# RESPONSE: "204" (success: 204, or what the modelled server answers),
# "500", "429:RETRY_AFTER", "slow:SECONDS" (answers as "204" after
# SECONDS), "fill:FILE" (writes FILE until its file system is full, then
# answers as "204": the client's disk fills while its request is served),
# "reset" (closes the connection without an answer), "400:MESSAGE".  Binds 127.0.0.1 on a free port (or $RECV_PORT) and
# writes it to PORTFILE.
#
# --codespeed ENVS models Codespeed's POST /result/add/json/ (codespeed/
# views.py add_json_results, results.py validate_result): the form field
# "json" required ("No key 'json' in POST payload"), each result's
# mandatory keys ('Key "K" missing from request', 'Value for key "K"
# empty in request'), the environment known ("Environment NAME not
# found": Codespeed never creates one; ENVS are the known ones), its
# model's field lengths; success is 202 "All result data saved
# successfully".  Results before a refused one are kept, as Codespeed
# does; each saved one goes to LOG.results (JSON a line).
# --json models a generic JSON endpoint: Content-Type application/json and
# a body that parses as the vtbench-upload/1 document, else 400.
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
codespeed_envs = None
json_mode = False
while args and args[0].startswith("--"):
    opt = args.pop(0)
    if opt == "--codespeed":
        codespeed_envs = set(e for e in args.pop(0).split(",") if e)
    elif opt == "--json":
        json_mode = True
    else:
        sys.exit("http_receiver.py: unknown option " + opt)
portfile, log = args[0], args[1]
script = args[2:] or ["204"]
count = [0]
lock = threading.Lock()

CS_MANDATORY = ["commitid", "branch", "project", "executable", "benchmark", "environment",
                "result_value"]
# codespeed/models.py max_length of the fields a result names
CS_MAXLEN = {"project": 30, "branch": 20, "commitid": 42, "executable": 30,
             "benchmark": 100, "units": 20}


def codespeed(path, headers, body):
    """(status, message) of Codespeed's add_json_results."""
    if not path.endswith("/result/add/json/"):
        return 404, "Not Found"
    ctype = headers.get("Content-Type", "")
    form = urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True) \
        if ctype.startswith("application/x-www-form-urlencoded") else {}
    if not form.get("json") or not form["json"][0]:
        return 400, "No key 'json' in POST payload"
    try:
        data = json.loads(form["json"][0])
    except ValueError:
        return 500, "Server Error (500)"
    for item in data:
        for key in CS_MANDATORY:
            if key not in item:
                return 400, 'Key "' + key + '" missing from request'
            if item[key] == "":
                return 400, 'Value for key "' + key + '" empty in request'
        if item["environment"] not in codespeed_envs:
            return 400, "Environment %(environment)s not found" % item
        for key, n in CS_MAXLEN.items():
            if key in item and len(str(item[key])) > n:
                return 400, "%s: Ensure this value has at most %d characters" % (key, n)
        if not isinstance(item["result_value"], (int, float)):
            return 400, "result_value: must be a number"
        for key in ("revision_date", "result_date"):
            try:
                if key in item:
                    time.strptime(item[key], "%Y-%m-%d %H:%M:%S")
            except (TypeError, ValueError):
                return 400, "%s: Enter a valid date/time." % key
        with lock, open(log + ".results", "a") as f:
            f.write(json.dumps(item) + "\n")
    return 202, "All result data saved successfully"


def generic_json(headers, body):
    if not headers.get("Content-Type", "").startswith("application/json"):
        return 415, "expected application/json"
    try:
        doc = json.loads(body.decode("utf-8"))
    except ValueError as e:
        return 400, "bad JSON: %s" % e
    for key in ("schema", "campaign", "host", "compare", "boots"):
        if key not in doc:
            return 400, "missing " + key
    return 200, '{"ok": true}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        with lock:
            step = script[min(count[0], len(script) - 1)]
            count[0] += 1
        code, extra = (step.split(":", 1) + [""])[:2]
        headers = {}
        msg = b""
        if code == "slow":
            time.sleep(float(extra))
            code, extra = "204", ""
        elif code == "fill":
            with open(extra, "wb", buffering=0) as f:
                try:
                    while f.write(b"\0" * 4096):
                        pass
                except OSError:  # ENOSPC
                    pass
            code, extra = "204", ""
        if code == "204" and codespeed_envs is not None:
            code, text = codespeed(self.path, self.headers, body)
            msg = text.encode()
        elif code == "204" and json_mode:
            code, text = generic_json(self.headers, body)
            msg = text.encode()
        elif code == "429" and extra:
            headers["Retry-After"] = extra
        elif extra:
            msg = extra.encode()
        with open(log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "headers": dict(self.headers.items()),
                                "body": body.decode("utf-8", "surrogateescape"),
                                "status": 0 if code == "reset" else int(code)}) + "\n")
        if code == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.connection.close()
            self.close_connection = True
            return
        try:
            self.send_response(int(code))
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
        except OSError:  # the client gave up on a slow answer
            self.close_connection = True

    do_POST = do_PUT = handle_any


srv = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("RECV_PORT", "0"))), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
