"""A time-stamping authority on loopback: `openssl ts -reply` behind a small HTTP server, with a
certificate authority and a time-stamping certificate of its own made by `openssl`."""

from __future__ import annotations

import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CONFIG = """
[ tsa ]
default_tsa = local
[ local ]
dir = {dir}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/tsa.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


@dataclass
class Tsa:
    url: str
    ca: Path  # the authority's root certificate, what a verifier trusts
    cert: Path  # its time-stamping certificate
    asked: list[bytes]  # every query it received


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _keys(folder: Path) -> None:
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
             "-subj", "/CN=Loopback TSA root", "-days", "2",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign", cwd=folder)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tsa.key", "-out", "tsa.csr",
             "-subj", "/CN=Loopback TSA", cwd=folder)
    (folder / "ext.cnf").write_text("extendedKeyUsage=critical,timeStamping\n"
                                    "keyUsage=critical,digitalSignature\n")
    _openssl("x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "tsa.pem", "-days", "2", "-extfile", "ext.cnf", cwd=folder)
    (folder / "serial").write_text("01\n")
    (folder / "tsa.cnf").write_text(CONFIG.format(dir=folder))


@contextmanager
def running_tsa() -> Iterator[Tsa]:
    """The authority, answering `POST /` with a time-stamp reply, until the block ends."""
    with tempfile.TemporaryDirectory(prefix="banco-tsa-") as tmp:
        folder = Path(tmp)
        _keys(folder)
        asked: list[bytes] = []
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                query = self.rfile.read(int(self.headers["Content-Length"]))
                with lock:  # one `openssl ts` at a time: they share the serial file
                    asked.append(query)
                    (folder / "query.tsq").write_bytes(query)
                    _openssl("ts", "-reply", "-config", "tsa.cnf", "-queryfile", "query.tsq",
                             "-out", "reply.tsr", cwd=folder)
                    reply = (folder / "reply.tsr").read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield Tsa(f"http://127.0.0.1:{server.server_address[1]}/", folder / "ca.pem",
                      folder / "tsa.pem", asked)
        finally:
            server.shutdown()
            server.server_close()
