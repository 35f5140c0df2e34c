"""A real Celery worker process, for tests/test_webhook_worker.py and the webhook bench.

    python -m bench.celery_worker --pool=solo -Q <queue> ...      (arguments of `celery worker`)

With CLOCK_OFFSET_FILE set, the worker's apicore.clock.now() runs as many seconds ahead as that file says
(read at each call): the tests move the worker's clock the way time-machine moves their own, instead of
sleeping through retry intervals. `CeleryWorker` starts one, waits until it is ready, stops or kills it.
"""

import contextlib
import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _moved_clock(offset_file: str) -> None:
    from apicore import clock

    real_now = clock.now

    def now() -> dt.datetime:
        try:
            seconds = float(Path(offset_file).read_text() or 0)
        except (OSError, ValueError):
            seconds = 0.0
        return real_now() + dt.timedelta(seconds=seconds)

    clock.now = now


def main() -> None:
    sys.path.insert(0, str(ROOT))
    if os.environ.get("CLOCK_OFFSET_FILE"):
        _moved_clock(os.environ["CLOCK_OFFSET_FILE"])
    from config.celery import app

    app.worker_main(["worker", *sys.argv[1:]])


class CeleryWorker:
    """One worker process (`--pool` solo by default) consuming `queue`, its output in `log_path`."""

    def __init__(self, env: dict[str, str], *, queue: str, log_path: Path, pool: str = "solo", concurrency: int = 1):
        self.env, self.queue, self.log_path = env, queue, Path(log_path)
        self.pool, self.concurrency = pool, concurrency
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 30.0) -> "CeleryWorker":
        command = [
            sys.executable,
            "-m",
            "bench.celery_worker",
            f"--pool={self.pool}",
            f"--concurrency={self.concurrency}",
            "-Q",
            self.queue,
            "-n",
            f"{self.queue}-{time.monotonic_ns()}@%h",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        start = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Celery worker exited: {self.tail()}")
            with self.log_path.open("rb") as output:
                output.seek(start)
                if b" ready." in output.read():
                    return self
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the Celery worker did not start in {timeout} s: {self.tail()}")

    def tail(self, size: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_bytes()[-size:].decode("utf-8", "replace")
        return ""

    def kill(self) -> None:
        """SIGKILL to the worker and its children: nothing is acknowledged, nothing is cleaned up."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


if __name__ == "__main__":
    main()
