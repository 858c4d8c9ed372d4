"""The fuzz driver: `python -m tests.fuzz.fuzzer --cases N --seed S --jobs J [--cli-cases M]`.

Runs cases in worker processes (each under a memory limit), one case at a time per worker with
a per-case timeout; a worker killed by a signal is an abort, one past the timeout a hang (it is
killed and replaced). Prints `fuzz: N tried / M clean` and the count of each class, writes every
non-clean case (its id, mutations, message and scenario) under --failures, and exits 1 when any
case is not clean. `--replay ID` reruns one case in this process and prints what it did.
"""
from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLEAN = ("ok", "clean")
CLASSES = ("ok", "clean", "traceback", "bad_message", "panic", "abort", "memory", "hang", "bad_output", "harness")
STARTUP_TIMEOUT_S = 180.0


class Worker:
    def __init__(self, env: dict, log_dir: Path, n: int):
        self.log = log_dir / f"worker{n}-{time.monotonic_ns()}.err"
        self.err = open(self.log, "w+b")
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.worker"], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     start_new_session=True)
        self.case: str | None = None
        self.deadline = 0.0
        self.buf = b""
        self.ready = False
        self.started = time.monotonic()
        self.done = 0
        os.set_blocking(self.proc.stdout.fileno(), False)

    def send(self, case_id: str, timeout: float) -> None:
        self.case = case_id
        self.deadline = time.monotonic() + timeout
        self.proc.stdin.write(case_id.encode() + b"\n")
        self.proc.stdin.flush()

    def read_lines(self) -> list[str] | None:
        """Complete lines available now; None at end of file (the worker died)."""
        try:
            chunk = self.proc.stdout.read()
        except (BlockingIOError, ValueError):
            chunk = b""
        if chunk == b"" and self.proc.poll() is not None:
            return None
        self.buf += chunk or b""
        *lines, self.buf = self.buf.split(b"\n")
        return [ln.decode("utf-8", "replace") for ln in lines]

    def stderr_tail(self, n_chars: int = 3000) -> str:
        self.err.flush()
        self.err.seek(0)
        text = self.err.read().decode("utf-8", "replace")
        if self.case:
            i = text.rfind(f"@@case {self.case}\n")
            if i >= 0:
                text = text[i + len(self.case) + 8:]
        return text[-n_chars:]

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self.close()

    def close(self) -> None:
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (OSError, BrokenPipeError):
                pass
        self.err.close()
        try:
            self.log.unlink()
        except OSError:
            pass


def run_all(case_ids: list[str], *, jobs: int, timeout: float, mem_mb: int, until_s: float,
            progress: bool = False, recycle: int = 400) -> dict[str, dict]:
    env = {**os.environ, "CCSCOPE_FUZZ_MEM_MB": str(mem_mb), "CCSCOPE_FUZZ_UNTIL_S": repr(until_s),
           "PYTHONPATH": os.pathsep.join([str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
           "PYTHONFAULTHANDLER": "", "RUST_BACKTRACE": "0"}
    results: dict[str, dict] = {}
    todo = list(reversed(case_ids))
    log_dir = Path(tempfile.mkdtemp(prefix="ccscope-fuzz-logs-"))
    sel = selectors.DefaultSelector()
    workers: list[Worker] = []
    t0 = time.monotonic()
    last_print = t0

    def spawn(n: int) -> Worker:
        w = Worker(env, log_dir, n)
        sel.register(w.proc.stdout, selectors.EVENT_READ, w)
        return w

    def retire(w: Worker, kill: bool) -> None:
        sel.unregister(w.proc.stdout)
        if kill:
            w.kill()
        else:
            try:
                w.proc.stdin.close()
            except (OSError, BrokenPipeError):
                pass
            try:
                w.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.kill()
                return
            w.close()

    try:
        for n in range(min(jobs, len(todo))):
            workers.append(spawn(n))
        while workers:
            now = time.monotonic()
            for i, w in enumerate(list(workers)):
                if w.case is None and w.ready:
                    if todo and w.done < recycle:
                        w.send(todo.pop(), timeout)
                    else:
                        retire(w, kill=False)
                        workers.remove(w)
                        if todo:
                            workers.append(spawn(i))
                elif w.case is not None and now > w.deadline:
                    results[w.case] = {"id": w.case, "cls": "hang", "exc": "", "why": f"no answer in {timeout:.0f} s",
                                       "msg": w.stderr_tail()}
                    retire(w, kill=True)
                    workers.remove(w)
                    if todo:
                        workers.append(spawn(i))
                elif not w.ready and now - w.started > STARTUP_TIMEOUT_S:
                    raise RuntimeError(f"fuzz worker did not start in {STARTUP_TIMEOUT_S:.0f} s: {w.stderr_tail()}")
            if not workers:
                break
            deadlines = [w.deadline for w in workers if w.case is not None]
            wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 1.0
            for key, _ in sel.select(timeout=min(wait, 1.0) + 0.01):
                w: Worker = key.data
                if w not in workers:
                    continue
                lines = w.read_lines()
                if lines is None:  # died
                    if w.case is not None:
                        rc = w.proc.wait()
                        tail = w.stderr_tail()
                        why = f"killed by signal {signal.Signals(-rc).name}" if rc < 0 else f"exited with status {rc}"
                        if "memory allocation of" in tail:
                            why += " (Rust allocation failure)"
                        # a Python MemoryError that took the process down with it is the memory class
                        cls = "memory" if rc > 0 and "MemoryError" in tail else "abort"
                        results[w.case] = {"id": w.case, "cls": cls, "exc": "", "why": why, "msg": tail}
                    elif not w.ready:
                        raise RuntimeError(f"fuzz worker failed to start: {w.stderr_tail()}")
                    idx = workers.index(w)
                    retire(w, kill=True)
                    workers.remove(w)
                    if todo:
                        workers.insert(idx, spawn(idx))
                    continue
                for line in lines:
                    if line == "ready":
                        w.ready = True
                        continue
                    try:
                        res = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    results[res["id"]] = res
                    w.case = None
                    w.done += 1
                    if res["cls"] == "memory":  # a process that hit its limit is not trusted further
                        w.done = recycle
            if progress and time.monotonic() - last_print > 10:
                last_print = time.monotonic()
                bad = sum(1 for r in results.values() if r["cls"] not in CLEAN)
                print(f"fuzz: {len(results)}/{len(case_ids)} done, {bad} not clean, {last_print - t0:.0f} s",
                      file=sys.stderr, flush=True)
    finally:
        for w in workers:
            try:
                sel.unregister(w.proc.stdout)
            except (KeyError, ValueError):
                pass
            w.kill()
        try:
            for f in log_dir.iterdir():
                f.unlink()
            log_dir.rmdir()
        except OSError:
            pass
    return results


def write_failure(d: Path, res: dict) -> None:
    from tests.fuzz.gen import Case, make_case
    cls = res["cls"]
    sub = d / cls
    sub.mkdir(parents=True, exist_ok=True)
    name = res["id"].replace(":", "-")
    try:
        case = make_case(res["id"])
    except Exception as e:  # noqa: BLE001 - the report must not stop at one case
        case = Case(res["id"], "?", "?", [f"cannot remake the case: {type(e).__name__}: {e}"], {})
    lines = [f"id: {res['id']}", f"class: {cls}", f"family: {case.family}", f"mode: {case.mode}",
             f"replay: python -m tests.fuzz.fuzzer --replay {res['id']}", "mutations:"]
    lines += [f"  - {x}" for x in case.desc]
    lines += [f"exception: {res.get('exc', '')}", f"stage: {res.get('stage', '')}", f"why: {res.get('why', '')}",
              "message:", str(res.get("msg", ""))[:4000]]
    (sub / f"{name}.txt").write_text("\n".join(lines) + "\n")
    p = case.payload
    if "scenario" in p:
        try:
            text = json.dumps(p["scenario"], indent=1, default=repr)
        except (ValueError, TypeError, RecursionError):
            text = repr(p["scenario"])
        (sub / f"{name}.json").write_text(text[:1_000_000])
    elif "text" in p:
        (sub / f"{name}{p['suffix']}").write_bytes(p["text"][:1_000_000])


def summarize(results: dict[str, dict], label: str = "fuzz") -> tuple[str, int]:
    counts = Counter(r["cls"] for r in results.values())
    n = len(results)
    clean = counts["ok"] + counts["clean"]
    gap = sum(1 for r in results.values() if r.get("validate_gap"))
    lines = [f"{label}: {n} tried / {clean} clean",
             "  " + "  ".join(f"{c} {counts[c]}" for c in CLASSES if counts[c] or c in CLEAN),
             f"  accepted by validate, refused by run: {gap}"]
    return "\n".join(lines), n - clean


def replay(case_id: str, until_s: float) -> int:
    from tests.fuzz.gen import make_case
    from tests.fuzz.worker import run_case
    case = make_case(case_id)
    print(f"id: {case_id}\nfamily: {case.family}\nmode: {case.mode}")
    for x in case.desc:
        print(f"  - {x}")
    res = run_case(case, until_s)
    print(json.dumps(res, indent=1))
    return 0 if res["cls"] in CLEAN else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.fuzzer", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=1000, help="API cases (mutated scenarios through the Python API)")
    ap.add_argument("--cli-cases", type=int, default=0, help="CLI cases (`ccscope run` subprocesses)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first case index (to split a long run)")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--cli-timeout", type=float, default=90.0, help="seconds per CLI case")
    ap.add_argument("--mem-mb", type=int, default=3072, help="address-space limit of each worker, MiB (0: none)")
    ap.add_argument("--until", type=float, default=2e-4, help="simulated seconds of each run")
    ap.add_argument("--failures", type=Path, default=REPO / "target" / "fuzz-failures",
                    help="directory for the non-clean cases (replaced)")
    ap.add_argument("--replay", metavar="ID", help="rerun one case (e.g. api:1:42) here and print it")
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args(argv)
    if a.replay:
        return replay(a.replay, a.until)
    t0 = time.monotonic()
    ids = [f"api:{a.seed}:{i}" for i in range(a.start, a.start + a.cases)]
    results = run_all(ids, jobs=a.jobs, timeout=a.timeout, mem_mb=a.mem_mb, until_s=a.until, progress=a.progress)
    if a.cli_cases:
        cli_ids = [f"cli:{a.seed}:{i}" for i in range(a.start, a.start + a.cli_cases)]
        results.update(run_all(cli_ids, jobs=a.jobs, timeout=a.cli_timeout, mem_mb=a.mem_mb, until_s=a.until,
                               progress=a.progress))
    text, bad = summarize({k: v for k, v in results.items() if k.startswith("api:")})
    print(text)
    if a.cli_cases:
        t2, b2 = summarize({k: v for k, v in results.items() if k.startswith("cli:")}, label="fuzz cli")
        print(t2)
        bad += b2
    import shutil
    if a.failures.exists():
        shutil.rmtree(a.failures)
    a.failures.mkdir(parents=True, exist_ok=True)
    with open(a.failures / "results.jsonl", "w") as f:
        for r in sorted(results.values(), key=lambda r: r["id"]):
            if r["cls"] not in CLEAN or r.get("validate_gap"):
                f.write(json.dumps(r) + "\n")
    failing = sorted((r for r in results.values() if r["cls"] not in CLEAN), key=lambda r: (r["cls"], r["id"]))
    per_class: Counter = Counter()
    for r in failing:
        per_class[r["cls"]] += 1
        if per_class[r["cls"]] <= 200:
            write_failure(a.failures, r)
    for r in sorted((r for r in results.values() if r.get("validate_gap")), key=lambda r: r["id"])[:20]:
        print(f"  accepted by validate, refused by run: {r['id']}: {str(r.get('msg', ''))[:160]}")
    for r in failing[:20]:
        msg = str(r.get("msg", "")).strip().splitlines()
        print(f"  {r['cls']}: {r['id']}: {r.get('exc', '')}: {(msg[-1] if msg else '')[:160]}")
    if failing:
        print(f"fuzz: {len(failing)} not clean; cases written to {a.failures} (replay one with --replay ID)")
    print(f"fuzz: {time.monotonic() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
