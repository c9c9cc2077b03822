"""Build the small Go test programs (a directory with its own go.mod and go.sum) once, into
the kafpy cache, for tests that run a Go client such as franz-go.

The binary lands in `<cache>/go/bin/<name>-<hash>`, the hash being that of the program's
go.mod, go.sum and .go files, so later runs (and other checkouts) reuse it and a changed
program is rebuilt. Modules come from the Go module proxy into `<cache>/go/mod`
(`scripts/install-deps.sh` downloads them ahead), checked against the committed go.sum;
GOTOOLCHAIN=local so that the machine's `go` is used and no toolchain is downloaded. A
missing `go` or a failed build raises: tests fail, they never skip.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from .kafka_dist import cache_dir

GO_CANDIDATES = ("/usr/local/go/bin/go", "/usr/lib/go/bin/go")
BUILD_TIMEOUT_S = 600.0


class GoBuildFailed(RuntimeError):
    """`go` is missing or `go build` failed (its output is in the message)."""


def go_executable() -> str:
    """The machine's `go`: on PATH, else where Go's tarball or Debian put it."""
    found = shutil.which("go")
    if found:
        return found
    for candidate in GO_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    raise GoBuildFailed(f"no `go` on PATH nor at {', '.join(GO_CANDIDATES)}")


def go_environment() -> dict[str, str]:
    """The environment every build runs in: module and build caches under the kafpy cache,
    modules resolved from go.sum (`-mod=mod`), the machine's toolchain only."""
    base = cache_dir() / "go"
    env = dict(os.environ)
    env.update({"GOMODCACHE": str(base / "mod"), "GOCACHE": str(base / "build"),
                "GOPATH": str(base / "path"), "GOFLAGS": "-mod=mod -buildvcs=false",
                "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"})
    return env


def _digest(source: Path) -> str:
    h = hashlib.sha256()
    for path in sorted([source / "go.mod", source / "go.sum", *source.glob("*.go")]):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def build_go(source: Path) -> Path:
    """Build the Go program in directory `source` (once per content); returns the binary."""
    out = cache_dir() / "go" / "bin" / f"{source.name}-{_digest(source)}"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    result = subprocess.run([go_executable(), "build", "-o", str(tmp), "."], cwd=source,
                            env=go_environment(), capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT_S)
    if result.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise GoBuildFailed(f"go build in {source} exited {result.returncode}:\n"
                            f"{result.stdout}{result.stderr[-4000:]}")
    os.replace(tmp, out)  # atomic: a concurrent build of the same content wins either way
    return out
