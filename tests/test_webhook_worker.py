"""Webhooks end to end: a real Celery worker process, a real broker (Redis where TEST_REDIS_URL is set, and the
file-system broker of `make run`), a real HTTP receiver on loopback written from document 3 (webhooks.receiver).

The worker's clock is moved with the test's (bench/celery_worker.py reads an offset file; time-machine moves
this process, and so the receiver's 5-minute window), never slept through. Needs PostgreSQL: the worker is
another process and must see what the test commits.
"""

import datetime as dt
import json
import threading
import time
import uuid

import pytest
import time_machine
from django.conf import settings
from django.db import connection, transaction
from kombu import pools as kombu_pools

from bench.celery_worker import CeleryWorker
from bench.server import database_url_of, flush_redis
from bookings import services as bookings
from config.celery import app as celery_app
from flightlog import services as flights
from objects_app import services as objects
from tests.factories import MemberFactory, OrganizationFactory, UserFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory
from webhooks import services
from webhooks.models import Delivery, DeliveryState, Webhook, WebhookState
from webhooks.receiver import Receiver
from webhooks.tasks import deliveries_sweep_task, paused_webhooks_ping_task

DATABASE_ENGINE = settings.DATABASES["default"]["ENGINE"]
pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        "postgresql" not in DATABASE_ENGINE,
        reason="the worker is another process: it needs PostgreSQL (DATABASE_URL=postgres://...)",
    ),
]
BROKERS = ["filesystem", *(["redis"] if settings.TEST_REDIS_URL else [])]


def broker_redis_url() -> str:
    # Its own Redis db: the cache tests flush TEST_REDIS_URL's.
    return settings.TEST_REDIS_URL.rsplit("/", 1)[0] + "/6"


class Broker:
    """The broker of one test module, for this process (publishing) and the worker processes alike."""

    def __init__(self, kind: str, folder):
        self.kind, self.folder = kind, folder
        self.queue = f"webhooks-test-{uuid.uuid4().hex[:8]}"
        if kind == "redis":
            self.url = broker_redis_url()
            flush_redis(self.url)
            self.options = {}
        else:
            self.url = "filesystem://"
            for name in ("processed", "control"):
                (folder / name).mkdir(parents=True, exist_ok=True)
            self.options = {
                "data_folder_in": str(folder),
                "data_folder_out": str(folder),
                "processed_folder": str(folder / "processed"),
                "control_folder": str(folder / "control"),
                "store_processed": False,
            }

    def env(self, clock_file) -> dict[str, str]:
        import os

        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url_of(connection.settings_dict),
            SECRET_KEY=settings.SECRET_KEY,  # the webhooks' secrets are encrypted under it
            CELERY_BROKER_URL=self.url,
            CELERY_QUEUE=self.queue,
            CELERY_TASK_ALWAYS_EAGER="false",
            WEBHOOK_ALLOW_LOOPBACK="true",
            CLOCK_OFFSET_FILE=str(clock_file),
            LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
        )
        if self.kind == "filesystem":
            env["CELERY_BROKER_FOLDER"] = str(self.folder)
        env.pop("REDIS_URL", None)
        return env

    def publish_here(self):
        """This process publishes to the broker (instead of running tasks eagerly) until the returned undo."""
        keys = ("task_always_eager", "broker_url", "broker_transport_options", "task_default_queue")
        saved = {key: celery_app.conf[key] for key in keys}
        celery_app.conf.update(
            task_always_eager=False,
            broker_url=self.url,
            broker_transport_options=self.options,
            task_default_queue=self.queue,
        )
        self._fresh_pools()

        def undo():
            self._fresh_pools()
            celery_app.conf.update(saved)

        return undo

    @staticmethod
    def _fresh_pools():
        # kombu keeps its connection pools in a global registry: a fresh one for the new broker settings.
        kombu_pools.reset()
        celery_app._pool = None
        celery_app.amqp._producer_pool = None


class Clock:
    """This process's clock (time-machine, ticking) and the workers' (the offset file), moved together."""

    def __init__(self, path):
        self.path = path
        self.offset = 0.0
        self.path.write_text("0")
        self.traveller = time_machine.travel(dt.datetime.now(dt.UTC), tick=True)
        self.coordinates = self.traveller.start()

    def stop(self):
        self.traveller.stop()
        self.path.write_text("0")

    def move_to(self, seconds: float):
        """To `seconds` after the test began."""
        self.move(seconds=seconds - self.offset)

    def move(self, **delta):
        seconds = dt.timedelta(**delta).total_seconds()
        self.offset += seconds
        self.path.write_text(str(self.offset))
        self.coordinates.shift(seconds)


@pytest.fixture(scope="module", params=BROKERS)
def broker(request, tmp_path_factory):
    return Broker(request.param, tmp_path_factory.mktemp("broker"))


@pytest.fixture(scope="module")
def clock_file(tmp_path_factory):
    return tmp_path_factory.mktemp("clock") / "offset"


@pytest.fixture(scope="module")
def worker(broker, clock_file, django_db_setup, django_db_blocker, tmp_path_factory):
    with django_db_blocker.unblock():
        env = broker.env(clock_file)
    running = CeleryWorker(env, queue=broker.queue, log_path=tmp_path_factory.mktemp("worker") / "worker.log")
    running.start()
    yield running
    running.stop()


@pytest.fixture
def clock(clock_file):
    moved = Clock(clock_file)
    yield moved
    moved.stop()


@pytest.fixture
def publishing(broker):
    undo = broker.publish_here()
    yield broker
    undo()


class Answers:
    """The receiver's answers: a queue of statuses for accepted requests, then 200."""

    def __init__(self):
        self.statuses: list[int] = []
        self.hold: threading.Event | None = None
        self.arrived = threading.Event()

    def __call__(self, received) -> int:
        self.arrived.set()
        if self.hold is not None:
            self.hold.wait(30)
        return self.statuses.pop(0) if self.statuses else 200


@pytest.fixture
def world(transactional_db):
    organization = OrganizationFactory()
    booker = UserFactory()
    member = MemberFactory(organization=organization, user=booker)
    return organization, ObjectFactory(organization=organization), booker, member


@pytest.fixture
def hooked(world, worker, publishing, clock):
    organization = world[0]
    answers = Answers()
    receiver = Receiver(token="", signing_key="", reply=answers)
    receiver.start()
    webhook, token, signing_key = services.webhook_create(organization=organization, url=receiver.url)
    receiver.token, receiver.signing_key = token, signing_key
    yield webhook, receiver, answers
    answers.hold = None
    receiver.stop()


def wait_until(condition, timeout: float = 20.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def logged(*, attempts: int) -> None:
    """Wait until the worker has logged the only delivery's failed try number `attempts`."""
    wait_until(
        lambda: Delivery.objects.filter(state=DeliveryState.PENDING, attempts=attempts).exists(),
        what=f"try {attempts} to be logged",
    )


def book(booking_object, booker, hours=1):
    start = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=1)
    return bookings.booking_create(
        object=booking_object, user=booker, start_at=start, end_at=start + dt.timedelta(hours=hours)
    )


def test_every_event_type_arrives_with_what_a_receiver_from_document_3_accepts(world, hooked):
    organization, booking_object, booker, member = world
    webhook, receiver, _ = hooked
    sharing = OrganizationFactory()
    ObjectShareFactory(object=booking_object, organization=sharing)
    expected = []

    booking = book(booking_object, booker)
    expected.append(("booking.create", booking.pk, None))
    bookings.booking_update(booking=booking, end_at=booking.end_at + dt.timedelta(hours=1))
    expected.append(("booking.update", booking.pk, None))
    bookings.booking_delete(booking=booking)
    expected.append(("booking.delete", booking.pk, None))

    today = dt.date.today()
    flight = flights.flight_create(object=booking_object, date=today, pilot=member, comment="first")
    expected.append(("flightlog.create", flight.pk, None))
    flights.flight_update(flight=flight, comment="corrected")
    expected.append(("flightlog.update", flight.pk, None))
    flights.flight_endorse(flight=flight, by=booker)
    expected.append(("flightlog.update", flight.pk, "endorsed"))
    other = flights.flight_create(object=booking_object, date=today, pilot=member)
    expected.append(("flightlog.create", other.pk, None))
    flights.flight_delete(flight=other)
    expected.append(("flightlog.delete", other.pk, None))

    remark = objects.remark_create(object=booking_object, description="Oil leak", category=1, by=booker)
    expected.append(("remark.create", remark.pk, None))
    for step, change in (
        (lambda: objects.remark_acknowledge(remark=remark, by=booker), "acknowledged"),
        (lambda: objects.remark_comment(remark=remark, text="Fixed?", by=booker), "commented"),
        (lambda: objects.remark_close(remark=remark, by=booker), "closed"),
    ):
        step()
        expected.append(("remark.update", remark.pk, change))

    # An object with logged flights cannot be deleted: a spare one, with a booking that has not ended.
    spare = ObjectFactory(organization=organization)
    unfinished = book(spare, booker)
    objects.object_delete(object=spare)
    services.webhook_ping(webhook=webhook)
    spare_events = {("booking.create", unfinished.pk, None), ("booking.delete", unfinished.pk, None)}

    arrived = receiver.wait_for(len(expected) + len(spare_events) + 1, accepted_only=True)
    assert all(item.accepted for item in receiver.received)
    events = [item.event for item in arrived]
    ping = next(event for event in events if event["event_type"] == "webhook.ping")
    assert ping["data"] == {} and ping["organization"] == {"id": organization.pk}
    got = sorted(
        (
            (event["event_type"], event["data"]["id"], event["data"].get("change"))
            for event in events
            if event["event_type"] != "webhook.ping"
        ),
        key=str,
    )
    assert got == sorted(expected + list(spare_events), key=str)
    for item in arrived:
        event = item.event
        assert list(event) == ["organization", "event_type", "data", "id", "occurred_at", "schema_version"]
        assert event["id"] == item.header("X-Service-Event-Id") and len(event["id"]) == 32
        assert item.header("X-Service-Attempt") == "1"
        assert event["schema_version"] == 1 and event["occurred_at"].endswith("Z")
        if event["event_type"] != "webhook.ping":
            spare_event = (event["event_type"], event["data"]["id"], None) in spare_events
            assert event["data"]["object_id"] == (spare.pk if spare_event else booking_object.pk)
            assert ("change" in event["data"]) == (event["data"].get("change") is not None)
    assert len({item.header("Request-Id") for item in arrived}) == len(arrived)


def test_a_receiver_answering_500_three_times_gets_tries_1_to_4_under_one_event_id(world, hooked, clock):
    _, booking_object, booker, _ = world
    _, receiver, answers = hooked
    answers.statuses.extend([500, 500, 500])

    booking = book(booking_object, booker)
    for tried, due in enumerate(services.SCHEDULE[1:4], start=1):
        # The worker has logged the failed try and set the next one's time; then the clock moves to it.
        logged(attempts=tried)
        clock.move_to((due + services.SWEEP_GRACE).total_seconds() + 1)
        deliveries_sweep_task.delay()
        receiver.wait_for(len(receiver.received) + 1)

    attempts = [(item.header("X-Service-Attempt"), item.header("X-Service-Event-Id")) for item in receiver.received]
    [delivery] = Delivery.objects.all()
    assert attempts == [(str(n), delivery.event_id) for n in (1, 2, 3, 4)]
    assert [item.status for item in receiver.received] == [500, 500, 500, 200]
    assert all(item.accepted for item in receiver.received)
    assert {item.event["data"]["id"] for item in receiver.received} == {booking.pk}
    wait_until(lambda: Delivery.objects.get().state == DeliveryState.DELIVERED, what="the delivery to be delivered")
    assert list(Delivery.objects.get().tries.order_by("attempt").values_list("attempt", "status_code")) == [
        (1, 500),
        (2, 500),
        (3, 500),
        (4, 200),
    ]


def test_a_worker_killed_during_delivery_loses_nothing(world, hooked, broker, clock_file, clock, tmp_path):
    _, booking_object, booker, _ = world
    _, receiver, answers = hooked
    # A worker of its own on a queue of its own: the module's worker would take the nudge.
    own = Broker(broker.kind, tmp_path / "broker")
    undo = own.publish_here()
    killed = CeleryWorker(own.env(clock_file), queue=own.queue, log_path=tmp_path / "killed.log").start()
    try:
        answers.hold = threading.Event()
        booking = book(booking_object, booker)
        assert answers.arrived.wait(20), killed.tail()
        killed.kill()  # SIGKILL while the try is in flight
        answers.hold.set()
        answers.hold = None
        assert Delivery.objects.get().state == DeliveryState.SENDING

        again = CeleryWorker(own.env(clock_file), queue=own.queue, log_path=tmp_path / "again.log").start()
        try:
            # The dead worker's claim lapses; the sweep hands the delivery to the new worker.
            clock.move(seconds=(services.CLAIM + services.SWEEP_GRACE).total_seconds() + 1)
            deliveries_sweep_task.delay()
            wait_until(lambda: Delivery.objects.get().state == DeliveryState.DELIVERED, what=again.tail())
        finally:
            again.stop()
    finally:
        killed.kill()
        undo()
    arrived = [item for item in receiver.received if item.header("X-Service-Attempt") == "2"]
    assert len(arrived) == 1 and arrived[0].accepted
    assert arrived[0].event["data"]["id"] == booking.pk
    assert arrived[0].header("X-Service-Event-Id") == Delivery.objects.get().event_id


def test_a_rolled_back_change_sends_nothing(world, hooked):
    _, booking_object, booker, _ = world
    _, receiver, _ = hooked
    with pytest.raises(RuntimeError), transaction.atomic():
        rolled_back = book(booking_object, booker)
        raise RuntimeError("the change fails after the booking was written")
    kept = book(booking_object, booker, hours=2)

    receiver.wait_for(1)
    # Events go out in commit order: once the later one is in, the rolled-back one would have been too.
    services.webhook_ping(webhook=hooked[0])
    receiver.wait_for(2)
    ids = [item.event["data"].get("id") for item in receiver.received]
    assert ids == [kept.pk, None]
    assert rolled_back.pk not in ids
    assert Delivery.objects.filter(entity_id=rolled_back.pk).count() == 0


def test_72_hours_of_failures_pause_the_daily_ping_checks_and_a_2xx_resumes(world, hooked, clock):
    _, booking_object, booker, _ = world
    _, receiver, answers = hooked
    answers.statuses.extend([500] * 10)

    book(booking_object, booker)
    logged(attempts=1)
    # 72 hours on (the first event's series ended at 22 h): the next failed try pauses the webhook.
    clock.move(hours=72, seconds=services.SWEEP_GRACE.total_seconds() + 1)
    book(booking_object, booker, hours=4)
    wait_until(lambda: Webhook.objects.get().state == WebhookState.PAUSED, what="the webhook to pause")

    held = book(booking_object, booker, hours=2)
    assert Delivery.objects.get(entity_id=held.pk).state == DeliveryState.HELD

    # The daily ping while paused; not answered 2xx, the webhook stays paused.
    paused_webhooks_ping_task.delay()
    receiver.wait_for(3)
    assert receiver.received[-1].event["event_type"] == "webhook.ping"
    wait_until(lambda: Delivery.objects.filter(event_type="webhook.ping", state="failed").exists(), what="ping")
    assert Webhook.objects.get().state == WebhookState.PAUSED

    # A day later: a new event is held too; the ping is answered 200 and the webhook resumes. The held event
    # younger than 22 hours goes out; the one held 24 hours ago stays for support.
    clock.move(hours=24, seconds=1)
    young = book(booking_object, booker, hours=3)
    answers.statuses.clear()
    paused_webhooks_ping_task.delay()
    wait_until(lambda: Webhook.objects.get().state == WebhookState.ACTIVE, what="the webhook to resume")
    arrivals = receiver.wait_for(5)
    assert [item.event["event_type"] for item in arrivals[3:]] == ["webhook.ping", "booking.create"]
    assert arrivals[4].event["data"]["id"] == young.pk
    assert Delivery.objects.get(entity_id=held.pk).state == DeliveryState.HELD
    assert json.loads(bytes(Delivery.objects.get(entity_id=young.pk).body))["id"] == arrivals[4].header(
        "X-Service-Event-Id"
    )
