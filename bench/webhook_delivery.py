"""Webhook delivery, commit → verified receipt, over 1,000 events with one Celery worker.

    .venv/bin/python bench/run.py --only webhooks [--events 1000] [--pool threads] [--concurrency 8]

The production setup on loopback: its own PostgreSQL database (flyclub_bench_webhooks, recreated), Redis db 8
as the broker (flushed), one `celery worker` (bench/celery_worker.py) with the real settings, and a receiver
written from document 3 (webhooks.receiver: Authorization, signature, timestamp window) in this process.
Producers (4 `manage.py shell` processes at once, members booking at the same time) make bookings one
transaction each, as fast as they can, and note the moment each commits (an on_commit callback registered
before the booking, so it runs first); the receiver notes the moment each event has been verified. Latency
is the difference; events a second are the events over the time from the first commit to the last receipt,
which the producers bound on a small machine (each commit costs them the service's own work); so the worker's
own pace is measured too: 1,000 more events are committed while no worker runs, then a worker starts and
delivers them (events a second from its start to the last receipt).
Writes bench/results/webhooks.json.
"""

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.celery_worker import CeleryWorker  # noqa: E402 - after the path
from bench.server import (  # noqa: E402
    django_script,
    flush_redis,
    log,
    machine,
    manage,
    percentile,
    recreate_database,
    service_env,
)
from webhooks.receiver import Receiver  # noqa: E402 - plain Python: no Django in this process

WEBHOOKS_DB = "flyclub_bench_webhooks"
BROKER_URL = "redis://127.0.0.1:6379/8"
CACHE_URL = "redis://127.0.0.1:6379/9"
QUEUE = "bench-webhooks"
PRODUCERS = 4

SETUP_SCRIPT = """
import json
from accounts.models import Member, Organization, User
from objects_app.models import BookableObject
from webhooks.services import webhook_create
organization = Organization.objects.create(name="Webhook bench club", timezone="Europe/Stockholm")
user = User.objects.create(username="webhook-bench", first_name="Bench", last_name="Pilot")
Member.objects.create(organization=organization, user=user, member_number="1")
plane = BookableObject.objects.create(organization=organization, registration="SE-WHB", category=0)
webhook, token, signing_key = webhook_create(organization=organization, url={url!r})
print(json.dumps({{"token": token, "signing_key": signing_key, "object_id": plane.pk, "user_id": user.pk}}))
"""

PRODUCE_SCRIPT = """
import datetime as dt, json, time
from django.db import transaction
from accounts.models import User
from bookings.services import booking_create
from objects_app.models import BookableObject
plane = BookableObject.objects.get(pk={object_id})
user = User.objects.get(pk={user_id})
start = dt.datetime(2027, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days={offset_days})
committed = []
for number in range({count}):
    stamp = {{}}
    with transaction.atomic():
        transaction.on_commit(lambda stamp=stamp: stamp.setdefault("at", time.time()))
        begins = start + dt.timedelta(hours=number)
        booking = booking_create(object=plane, user=user, start_at=begins, end_at=begins + dt.timedelta(hours=1))
    committed.append([booking.pk, stamp["at"]])
print(json.dumps(committed))
"""


class WebhooksBench:
    def __init__(
        self, *, events: int, warmup: int, pool: str, concurrency: int, log_dir: Path, producers: int = PRODUCERS
    ):
        self.events, self.warmup, self.producers = events, warmup, producers
        self.pool, self.concurrency = pool, concurrency
        self.log_dir = log_dir

    def run(self) -> dict:
        log(f"recreating database {WEBHOOKS_DB}")
        database_url = recreate_database(WEBHOOKS_DB)
        flush_redis(BROKER_URL)
        env = service_env(database_url=database_url, redis_url=CACHE_URL)
        env.update(CELERY_BROKER_URL=BROKER_URL, CELERY_QUEUE=QUEUE, WEBHOOK_ALLOW_LOOPBACK="true")
        log("migrating")
        manage(env, "migrate", "--noinput", timeout=300)
        receiver = Receiver(token="", signing_key="").start()
        worker = None
        try:
            world = django_script(env, SETUP_SCRIPT.format(url=receiver.url))
            receiver.token, receiver.signing_key = world["token"], world["signing_key"]
            worker = self._worker(env, "webhook-worker.log")
            log(f"worker up ({self.pool}, concurrency {self.concurrency}); {self.warmup} warm-up events")
            if self.warmup:
                self._produce(env, world, self.warmup, offset_days=0)
                receiver.wait_for(self.warmup, timeout=60)
            log(f"measuring {self.events} events")
            before = len(receiver.received)
            committed = self._produce(env, world, self.events, offset_days=1000)
            arrived = receiver.wait_for(before + self.events, timeout=300)[before:]
            # The worker's own pace, whatever the producers manage: a worker that comes back to a backlog.
            worker.stop()
            worker = None
            log(f"backlog: {self.events} events committed while no worker runs")
            before = len(receiver.received)
            self._produce(env, world, self.events, offset_days=20000)
            worker = self._worker(env, "webhook-worker-backlog.log")
            ready = time.time()
            receiver.wait_for(before + self.events, timeout=300)
            drained = receiver.received[before:]
            backlog_rate = len(drained) / (max(item.received_at for item in drained) - ready)
        finally:
            if worker is not None:
                worker.stop()
            receiver.stop()
        document = self._document(committed, arrived)
        document["backlog_events_per_second"] = round(backlog_rate, 1)
        return document

    def _worker(self, env, log_name: str) -> CeleryWorker:
        return CeleryWorker(
            env, queue=QUEUE, log_path=self.log_dir / log_name, pool=self.pool, concurrency=self.concurrency
        ).start()

    def _produce(self, env, world, count: int, *, offset_days: int) -> dict[int, float]:
        """`count` bookings from `producers` processes at once (members booking at the same time), each one
        transaction; returns each booking's moment of commit."""
        shares = [count // self.producers + (1 if n < count % self.producers else 0) for n in range(self.producers)]

        def produce(number: int) -> list:
            code = PRODUCE_SCRIPT.format(
                object_id=world["object_id"],
                user_id=world["user_id"],
                count=shares[number],
                offset_days=offset_days + 400 * number,
            )
            return django_script(env, code, timeout=600)

        with ThreadPoolExecutor(self.producers) as pool:
            batches = list(pool.map(produce, range(self.producers)))
        return {booking_id: at for batch in batches for booking_id, at in batch}

    def _document(self, committed: dict[int, float], arrived: list) -> dict:
        refused = [item for item in arrived if not item.accepted]
        latencies = []
        for item in arrived:
            event = item.event
            if item.accepted and event["event_type"] == "booking.create" and event["data"]["id"] in committed:
                latencies.append(item.received_at - committed[event["data"]["id"]])
        if len(latencies) != len(committed) or refused:
            raise RuntimeError(f"{len(latencies)} of {len(committed)} events verified; {len(refused)} refused")
        first_commit = min(committed.values())
        last_receipt = max(item.received_at for item in arrived)
        ms = sorted(latency * 1000 for latency in latencies)
        return {
            "what": "booking_create commit -> verified receipt of its booking.create event",
            "events": len(latencies),
            "worker": {"pool": self.pool, "concurrency": self.concurrency},
            "producers": self.producers,
            "median_ms": round(percentile(ms, 0.5), 1),
            "p90_ms": round(percentile(ms, 0.9), 1),
            "p99_ms": round(percentile(ms, 0.99), 1),
            "max_ms": round(ms[-1], 1),
            "events_per_second": round(len(latencies) / (last_receipt - first_commit), 1),
            "produced_per_second": round(len(committed) / (max(committed.values()) - first_commit), 1),
            "machine": machine(),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }


def print_table(document: dict) -> None:
    print(
        f"\nWebhooks: {document['events']} events, one worker ({document['worker']['pool']}, "
        f"concurrency {document['worker']['concurrency']})\n"
        f"  commit -> verified receipt: median {document['median_ms']} ms, p90 {document['p90_ms']} ms, "
        f"p99 {document['p99_ms']} ms, max {document['max_ms']} ms\n"
        f"  {document['events_per_second']} events/s delivered as {document['producers']} producers committed "
        f"{document['produced_per_second']} a second\n"
        f"  {document['backlog_events_per_second']} events/s: the worker alone, on a backlog of "
        f"{document['events']} events (goal: at least 200)"
    )


if __name__ == "__main__":
    print(json.dumps(WebhooksBench(events=200, warmup=20, pool="solo", concurrency=1, log_dir=ROOT / "var").run()))
