"""Test certificates made with the openssl command line (never checked-in keys).

One CA signs the broker's certificate (CN=localhost, SAN 127.0.0.1) and the client ``alice``
(``CN=alice,OU=eng,O=acme``); a second, untrusted CA signs ``mallory``. ``server-keystore.pem``
is the broker's key and certificate in one PEM file (``ssl.keystore.type=PEM``). The same
directory serves brokers (server and inter-broker client side) and clients.
"""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _key(name: str, cwd: Path) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key", cwd=cwd)


def make_certs(d: Path) -> Path:
    """Writes the CAs, keys and certificates into ``d``; returns ``d``. EC keys: made in
    milliseconds, where RSA keys take seconds on a busy machine."""
    names = ("ca", "rogue-ca", "server", "alice", "mallory")
    with ThreadPoolExecutor(len(names)) as pool:
        list(pool.map(lambda n: _key(n, d), names))
    for ca in ("ca", "rogue-ca"):
        _openssl("req", "-x509", "-key", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2",
                 "-subj", f"/CN=kafpy-test-{ca}", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, subj, ca in (("server", "/CN=localhost", "ca"), ("alice", "/O=acme/OU=eng/CN=alice", "ca"),
                           ("mallory", "/CN=mallory", "rogue-ca")):
        _openssl("req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", subj, cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext", cwd=d)
    (d / "server-keystore.pem").write_text((d / "server.key").read_text() + (d / "server.pem").read_text())
    return d
