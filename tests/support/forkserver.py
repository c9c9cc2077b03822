"""Starts the suite's kafpy brokers by fork from a process that has imported kafpy already.

Why: ``python -m kafpy.broker`` spends about 0.6 CPU-s importing kafpy before it serves
anything, and the suite starts some 500 brokers on two cores. Forked from a process that has
those modules in memory, a broker starts and stops for about 0.05 CPU-s.

What a forked broker gets is what ``subprocess.Popen`` would have given it: a session (and
process group) of its own, stdin from /dev/null, stdout and stderr on the caller's files, the
caller's working directory, environment and arguments, and ``kafpy.broker`` run as
``__main__``; it exits as an interpreter does (threads joined, ``atexit`` run). The caller
gets a ``ForkedProcess``: Popen's ``pid``, ``poll``, ``wait``, ``returncode``,
``send_signal``, ``terminate`` and ``kill``. The child's ``/proc/<pid>/cmdline`` is the
server's.

Who calls it: the suite's fixtures that start kafpy brokers (``KafpyBroker`` and the KRaft
helpers), through ``popen()``, which hands any command it does not serve to
``subprocess.Popen``: another interpreter, a wrapper in front (``ip netns exec``), stdin other
than /dev/null, or an environment whose ``KAFPY_*`` or ``PYTHON*`` variables differ from the
server's (a few modules read them when imported). ``KAFPY_TEST_FORK=0`` turns it off, as does
a kernel without pidfds (Linux before 5.3).

One server per pytest process, started at its first use and closed by ``close_all()`` at the
session's end. The protocol, on a Unix socket, one connection per child: the caller sends the
request (length-prefixed JSON) with its stdout and stderr descriptors; the server forks and
answers the pid; when the child has exited it sends the exit code but keeps the child unreaped,
so its pid cannot be reused while the caller may still signal it; the caller's release makes
the server reap it and answer the CPU-seconds it spent (``reaped_cpu()``, for
tests/support/cpu_report.py, since this process never reaps it itself).
"""
from __future__ import annotations

import gc
import json
import os
import runpy
import select
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, Mapping, Sequence, cast

REPO_ROOT = Path(__file__).resolve().parents[2]
MODULES_FILE = Path(__file__).with_name("forkserver_modules.txt")
SERVED_MODULES = ("kafpy.broker",)
ENABLE_VARIABLE = "KAFPY_TEST_FORK"
# what the served modules read when imported, so a child must see the server's values
IMPORT_TIME_PREFIXES = ("KAFPY_", "PYTHON")
_HEADER = struct.Struct(">I")


# --------------------------------------------------------------------------- wire format
def _send(sock: socket.socket, message: Mapping[str, Any], fds: Sequence[int] = ()) -> None:
    data = json.dumps(message).encode()
    frame = _HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [frame], list(fds)) if fds else sock.send(frame)
    if sent < len(frame):
        sock.sendall(frame[sent:])


def _recv_exact(sock: socket.socket, n: int, fds: list[int] | None = None) -> bytes | None:
    buf = b""
    while len(buf) < n:
        if fds is not None and not buf:
            chunk, got, _flags, _addr = socket.recv_fds(sock, n, 4)
            fds.extend(got)
        else:
            chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def _recv(sock: socket.socket, fds: list[int] | None = None) -> dict[str, Any] | None:
    """One message, or None when the peer closed the connection."""
    head = _recv_exact(sock, _HEADER.size, fds)
    if head is None:
        return None
    body = _recv_exact(sock, _HEADER.unpack(head)[0])
    return None if body is None else dict(json.loads(body))


# --------------------------------------------------------------------------- caller side
class ForkedProcess:
    """A forked broker as its caller sees it: the subset of ``subprocess.Popen`` the suite's
    fixtures and kafpy._process use. Whether it has exited is read from a pidfd of its own
    (any number of threads may poll or wait at once, as with Popen); the exit code then comes
    from the server, which holds the child unreaped until this side has it."""

    def __init__(self, args: list[str], pid: int, conn: socket.socket) -> None:
        self.args = args
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        self._conn = conn
        self._pidfd = os.pidfd_open(pid)
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        return self._wait(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._wait(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def _wait(self, timeout: float | None) -> int | None:
        if self.returncode is not None:
            return self.returncode
        exited, _, _ = select.select([self._pidfd], [], [], timeout)
        if not exited:
            return self.returncode
        with self._lock:
            if self.returncode is None:
                message = _recv(self._conn)   # sent by the server as it saw the same exit
                self.returncode = (-signal.SIGKILL if message is None
                                   else int(message["returncode"]))
                self._release()
        return self.returncode

    def _release(self) -> None:
        """Let the server reap the child now that its exit code is known here."""
        try:
            _send(self._conn, {"release": True})
            answer = _recv(self._conn)
            if answer is not None:
                _Server.reaped_cpu += float(answer.get("cpu", 0.0))
        except OSError:
            pass
        finally:
            self._conn.close()

    def __del__(self) -> None:
        # closed only here, so that no thread can select on a descriptor number reused meanwhile
        try:
            os.close(self._pidfd)
        except (OSError, AttributeError):
            pass

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:   # unreaped until released here: the pid is still its own
            try:
                signal.pidfd_send_signal(self._pidfd, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __repr__(self) -> str:
        return f"<ForkedProcess pid={self.pid} returncode={self.returncode}>"


def _import_time(env: Mapping[str, str]) -> dict[str, str]:
    """The variables a child must share with the server. The server always runs unbuffered
    (harmless for a child that did not ask to) with the checkout on its path (as a child
    whose working directory is the checkout has it)."""
    found = {k: v for k, v in env.items() if k.startswith(IMPORT_TIME_PREFIXES)
             and k not in ("PYTHONUNBUFFERED", ENABLE_VARIABLE, "PYTHONPATH")}
    path = _paths_beside_the_checkout(env)
    if path:
        found["PYTHONPATH"] = os.pathsep.join(path)
    return found


def _paths_beside_the_checkout(env: Mapping[str, str]) -> list[str]:
    return [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(REPO_ROOT)]


def _server_environment(env: Mapping[str, str]) -> dict[str, str]:
    return {**env, "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *_paths_beside_the_checkout(env)])}


class _Server:
    """The one fork server of this pytest process."""

    instance: "_Server | None" = None
    lock = threading.Lock()
    reaped_cpu = 0.0

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = _server_environment(env)
        self.dir = Path(tempfile.mkdtemp(prefix="kafpy-fork-"))
        self.path = self.dir / "server.sock"
        self.log = open(self.dir / "server.log", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.forkserver", str(self.path)],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            cwd=REPO_ROOT, env=self.env)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.path.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the fork server did not start: "
                                   + (self.dir / "server.log").read_text(errors="replace")[-2000:])
            time.sleep(0.02)

    def serves(self, env: Mapping[str, str]) -> bool:
        return self.proc.poll() is None and _import_time(env) == _import_time(self.env)

    def spawn(self, args: list[str], module: str, cwd: str, env: Mapping[str, str],
              out: int, err: int, new_session: bool) -> ForkedProcess:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(self.path))
        _send(conn, {"module": module, "argv": args, "cwd": cwd, "env": dict(env),
                     "new_session": new_session}, [out, err])
        answer = _recv(conn)
        if answer is None or "pid" not in answer:
            conn.close()
            raise RuntimeError(f"the fork server did not start {args}: {answer}")
        return ForkedProcess(args, int(answer["pid"]), conn)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # reaped now, the server's children count in this process's RUSAGE_CHILDREN
        _Server.reaped_cpu = 0.0
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _fileno(stream: int | IO[Any] | None) -> int | None:
    if isinstance(stream, int) and stream >= 0:
        return stream
    if stream is not None and hasattr(stream, "fileno"):
        return int(stream.fileno())
    return None


def _has_pidfds() -> bool:
    """Whether this kernel (and its seccomp filter) gives pidfds, which both sides rely on."""
    try:
        os.close(os.pidfd_open(os.getpid()))
        return True
    except (OSError, AttributeError):
        return False


_PIDFDS = _has_pidfds()


def popen(args: Sequence[str], *, stdin: int | IO[Any] | None = subprocess.DEVNULL,
          stdout: int | IO[Any] | None = None, stderr: int | IO[Any] | None = None,
          cwd: str | Path | None = None, env: Mapping[str, str] | None = None,
          start_new_session: bool = False) -> "subprocess.Popen[bytes]":
    """A forked ``python -m kafpy.broker ...`` when this module serves the command (a
    ``ForkedProcess``, typed as the Popen it stands in for), else ``subprocess.Popen`` with
    the same arguments."""
    args = [str(a) for a in args]
    environment = dict(os.environ if env is None else env)
    out = _fileno(stdout)
    err = out if stderr == subprocess.STDOUT else _fileno(stderr)
    served = (_PIDFDS and os.environ.get(ENABLE_VARIABLE, "1") != "0"
              and len(args) >= 3 and args[0] == sys.executable and args[1] == "-m"
              and args[2] in SERVED_MODULES and stdin == subprocess.DEVNULL)
    if served and out is not None and err is not None:
        with _Server.lock:
            server = _Server.instance
            if server is None:
                server = _Server.instance = _Server(environment)
        if server.serves(environment):
            return cast("subprocess.Popen[bytes]", server.spawn(
                args, args[2], str(cwd or os.getcwd()), environment, out, err, start_new_session))
    return subprocess.Popen(args, stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd, env=env,
                            start_new_session=start_new_session)


def reaped_cpu() -> float:
    """CPU-seconds of the forked children reaped so far (user and system)."""
    return _Server.reaped_cpu


def close_all() -> None:
    """Stop this process's fork server (children still running stay; the survivors check
    finds them by their environment)."""
    with _Server.lock:
        if _Server.instance is not None:
            _Server.instance.close()
            _Server.instance = None


# --------------------------------------------------------------------------- server side
class _Child:
    def __init__(self, pid: int, conn: socket.socket, pidfd: int) -> None:
        self.pid = pid
        self.conn = conn
        self.pidfd = pidfd
        self.exited = False


def _preload() -> None:
    for line in MODULES_FILE.read_text().splitlines():
        name = line.strip()
        # a package's __main__ is what the child runs: imported here, runpy would warn that it
        # is already in sys.modules (and run a module object already executed once)
        if name and not name.startswith("#") and name.rpartition(".")[2] != "__main__":
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - a module gone or failing: the child imports it
                print(f"fork server: not preloaded: {name}", file=sys.stderr)
    gc.collect()
    gc.freeze()   # children leave the preloaded objects' pages shared


def _exit_code(pid: int) -> int:
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    assert info is not None
    if info.si_code == os.CLD_EXITED:
        return int(info.si_status)
    return -int(info.si_status)


def serve(path: str) -> None:
    """The server's loop: accept requests, fork children, report their exits."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)   # the caller waits for the name: it appears when ready
    parent = os.getppid()
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, ("accept", None))
    children: dict[int, _Child] = {}
    while True:
        events = sel.select(timeout=1.0)
        if os.getppid() != parent:   # the pytest process is gone
            return
        for key, _mask in events:
            kind, child = key.data
            if kind == "accept":
                conn, _ = listener.accept()
                fds: list[int] = []
                request = _recv(conn, fds)
                if request is None or len(fds) != 2:
                    for fd in fds:
                        os.close(fd)
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    sel.close()
                    listener.close()
                    for other in children.values():
                        other.conn.close()
                        os.close(other.pidfd)
                    conn.close()
                    _become(request, fds[0], fds[1])
                for fd in fds:
                    os.close(fd)
                new = _Child(pid, conn, os.pidfd_open(pid))
                children[pid] = new
                sel.register(new.pidfd, selectors.EVENT_READ, ("exit", new))
                try:
                    _send(conn, {"pid": pid})
                except OSError:   # the caller is gone: an orphan, reaped when it exits
                    conn.close()
                    new.conn = _closed_socket()
                    continue
                sel.register(conn, selectors.EVENT_READ, ("conn", new))
            elif kind == "exit":
                sel.unregister(child.pidfd)
                child.exited = True
                try:
                    _send(child.conn, {"returncode": _exit_code(child.pid)})
                except OSError:
                    _reap(child, sel, children)
            else:   # the caller's release, or its connection closed
                try:
                    message = _recv(child.conn)
                except OSError:
                    message = None
                if message is None and not child.exited:
                    sel.unregister(child.conn)   # an orphan: reaped when it exits
                    child.conn.close()
                    child.conn = _closed_socket()
                    continue
                _reap(child, sel, children)


def _closed_socket() -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.close()
    return s


def _reap(child: _Child, sel: selectors.BaseSelector, children: dict[int, _Child]) -> None:
    if not child.exited:
        return
    try:
        sel.unregister(child.conn)
    except (KeyError, ValueError):   # an orphan's connection, closed and unregistered before
        pass
    _pid, _status, usage = os.wait4(child.pid, 0)
    try:
        _send(child.conn, {"cpu": usage.ru_utime + usage.ru_stime})
    except OSError:
        pass
    child.conn.close()
    os.close(child.pidfd)
    del children[child.pid]


def _become(request: Mapping[str, Any], out: int, err: int) -> None:
    """In the forked child: take the caller's stdio, directory, environment and arguments
    and run the module as ``python -m`` would. It never returns into the server's loop: the
    module's end (or ``SystemExit``, or an exception) unwinds out of ``serve()``, so the child
    ends as an interpreter does (threads joined, ``atexit`` run, files flushed and closed by
    the interpreter's finalisation, a traceback and exit code 1 for an uncaught exception)."""
    if request["new_session"]:
        os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    for fd in {null, out, err} - {0, 1, 2}:
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    module = request["module"]
    sys.argv = [module, *request["argv"][3:]]
    sys.path[0] = request["cwd"]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    raise SystemExit(0)


if __name__ == "__main__":
    serve(sys.argv[1])
