"""The process that holds a sweep's local Dask cluster (`sweep(dask_local=N)`, `ccscope sweep --dask-local N`).

    python -m ccscope._dask_host N WORK_DIR

The sweep starts this process in a session of its own (`start_new_session=True`), so the cluster's
scheduler, nannies and workers are outside the terminal's process group: a terminal's Ctrl-C, sent
to every process of the foreground job, reaches the sweep alone, and the sweep stops the cluster
itself. This process:
  1. starts a LocalCluster of N worker processes (one thread each) bound to 127.0.0.1, with its
     worker directories under WORK_DIR;
  2. writes one JSON line on stdout, {"address": "tcp://127.0.0.1:PORT"} or {"error": "..."}
     (then exits 1), and nothing else there (its own and the cluster's output go to stderr,
     which the sweep sends to a log file);
  3. waits on stdin. A line "stop" (the sweep is done) closes the cluster gracefully, for at most
     CLOSE_TIMEOUT_S; a line "kill" (the sweep is interrupted) or end of file (the sweep is
     gone, even killed with SIGKILL) skips that. Then it sends SIGKILL to every other process of
     this session (multiprocessing's resource tracker excepted: it ends by itself once they are
     gone, removing what they leaked) and exits only once they are all gone. After end of file
     it also removes WORK_DIR's parent (the sweep's staging directory: nobody else is left to
     remove it).
So no worker outlives this process, and no point runs on after it has exited. A stop that
arrives while the cluster is still starting kills the session's processes at once.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

#: Seconds a graceful close of the cluster may take before its processes are killed.
CLOSE_TIMEOUT_S = 3.0
#: Seconds to wait for killed processes to be gone (a hang guard: SIGKILL cannot be refused).
KILL_WAIT_S = 30.0
#: Part of the command line of multiprocessing's resource tracker: it is left to end by itself
#: (once every process holding its pipe is gone), so that it removes what the killed ones leaked.
_TRACKER = b"resource_tracker"


def session_processes(sid: int, *, exclude: int | None = None) -> list[int]:
    """Live (not zombie) processes whose session id is `sid`, from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == exclude:
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()
        # fields after the command: state, ppid, pgrp, session, ...
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.append(int(name))
    return found


def _is_tracker(pid: int) -> bool:
    try:
        return _TRACKER in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_session(sid: int, *, spare_tracker: bool, timeout_s: float = KILL_WAIT_S) -> list[int]:
    """SIGKILL every process of session `sid` but this one (and multiprocessing's resource tracker
    when `spare_tracker`), then wait until they are gone; returns those still there after `timeout_s`."""
    me = os.getpid()
    deadline = time.monotonic() + timeout_s
    while True:
        left = [p for p in session_processes(sid, exclude=me) if not (spare_tracker and _is_tracker(p))]
        if not left or time.monotonic() > deadline:
            return left
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
        _reap()


def _one_line(e: BaseException) -> str:
    """`Type: message` of `e`, and of the first exception of its chain (the cause) when another, cut."""
    def text(x: BaseException) -> str:
        lines = f"{type(x).__name__}: {x}".strip().splitlines()
        return lines[0] if lines else type(x).__name__
    root, seen = e, {id(e)}
    while True:
        nxt = root.__cause__ or root.__context__
        if nxt is None or id(nxt) in seen:
            break
        root = nxt
        seen.add(id(root))
    msg = text(e) if root is e else f"{text(e)}, first {text(root)}"
    return msg if len(msg) <= 300 else msg[:297] + "..."


def main(argv: list[str]) -> int:
    try:
        n = int(argv[1])
        work = Path(argv[2])
        if n < 1:
            raise ValueError
    except (IndexError, ValueError):
        print(json.dumps({"error": f"usage: python -m ccscope._dask_host N WORK_DIR (N >= 1), got {argv[1:]!r}"}),
              flush=True)
        return 2
    # its shutdown kills every other process of its session: that session must be its own
    if os.getsid(0) != os.getpid():
        try:
            os.setsid()
        except OSError as e:  # a process group leader (started by a shell) cannot make a session
            print(json.dumps({"error": f"cannot start a session of its own ({e.strerror}); start it with "
                                       "start_new_session=True"}), flush=True)
            return 2
    sid = os.getsid(0)
    # the address line goes to the sweep's pipe; everything else written to stdout (by this process
    # or the cluster's, which inherit it) goes to stderr, the log; stdin is read here only
    reply = os.fdopen(os.dup(1), "w")
    commands = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    lock = threading.Lock()
    state = {"phase": "starting", "orphan": False}
    stop = threading.Event()

    def finish(code: int) -> None:
        left = kill_session(sid, spare_tracker=True)
        if left:
            print(f"ccscope._dask_host: processes {left} still alive after SIGKILL", file=sys.stderr, flush=True)
        if state["orphan"]:  # the sweep is gone: its staging directory is this process's to remove
            shutil.rmtree(work.parent, ignore_errors=True)
        sys.stderr.flush()
        os._exit(code)

    def watch_stdin() -> None:
        try:
            line = commands.readline()
        except OSError:
            line = b""
        with lock:
            state["orphan"] = not line.strip()
            state["kill"] = line.strip() != b"stop"
            if state["phase"] == "starting":  # the cluster is half-started: kill it now
                state["phase"] = "stopping"
                finish(0)
            stop.set()

    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=watch_stdin, name="ccscope-dask-host-stdin", daemon=True).start()
    try:
        from distributed import LocalCluster
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, local_directory=str(work))
    except BaseException as e:  # noqa: BLE001 - any failure to start is reported to the sweep, on one line
        with lock:
            state["phase"] = "stopping"
            import traceback
            traceback.print_exc()  # to the log, before the reply: the sweep reads the log once it has the reply
            sys.stderr.flush()
            try:
                reply.write(json.dumps({"error": _one_line(e)}) + "\n")
                reply.flush()
            except OSError:
                pass
            finish(1)
    with lock:
        if state["phase"] != "starting":
            finish(0)
        state["phase"] = "running"
        try:
            reply.write(json.dumps({"address": cluster.scheduler_address}) + "\n")
            reply.flush()
            reply.close()
        except OSError:  # the sweep is gone before it read the address
            state["orphan"] = True
            finish(0)
    while not stop.wait(1.0):
        pass
    if state.get("kill"):  # the sweep is interrupted (its points have ended) or gone
        with lock:
            finish(0)
    # a graceful close, bounded: the points have been told to stop; what is still there then is killed
    timer = threading.Timer(CLOSE_TIMEOUT_S, finish, args=(0,))
    timer.daemon = True
    timer.start()
    try:
        cluster.close(timeout=CLOSE_TIMEOUT_S)
    except BaseException:  # noqa: BLE001 - whatever the close did, the processes are killed next
        pass
    with lock:
        finish(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
