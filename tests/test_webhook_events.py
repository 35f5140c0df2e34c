"""Webhook events from every place a change can happen (document 3, "Events"): the services of bookings, the flight
log, remarks and objects record exactly the documented deliveries in the change's transaction, for the owner's
webhooks and those of the organizations an object is shared with; a refused change records nothing. The
organization website goes through the same services (its booking, flight, object and remark pages)."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apicore.errors import ServiceError
from bookings.models import Booking
from bookings.services import booking_create, booking_delete, booking_update
from flightlog.models import FlightLogEntry
from flightlog.services import flight_create, flight_delete, flight_endorse, flight_update
from objects_app.models import BookableObject
from objects_app.services import (
    object_delete,
    remark_acknowledge,
    remark_close,
    remark_comment,
    remark_create,
)
from tests.admin_fixtures import ADMIN, form_data, page_errors, shown_messages, web
from tests.conftest import FROZEN_AT
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import (
    BookingFactory,
    FlightFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
)
from webhooks.models import Delivery
from webhooks.services import webhook_create

UTC = dt.UTC
ADDRESS = "http://127.0.0.1:9/webhook"
BOOKINGS = f"{ADMIN}/bookings/booking"
FLIGHTS = f"{ADMIN}/flightlog/flightlogentry"
OBJECTS = f"{ADMIN}/objects_app/bookableobject"


def at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def hook_of(organization, **subscriptions):
    webhook, _token, _key = webhook_create(organization=organization, url=ADDRESS, **subscriptions)
    return webhook


def events(webhook) -> list[tuple[str, dict]]:
    """The webhook's deliveries in the order recorded: (event_type, data of the body)."""
    found = []
    for delivery in Delivery.objects.filter(webhook=webhook).order_by("id"):
        body = json.loads(bytes(delivery.body))
        # The body and the row's columns tell the same event, for the receiving organization.
        assert body["organization"] == {"id": webhook.organization_id}
        assert (body["event_type"], body["id"]) == (delivery.event_type, delivery.event_id)
        assert (delivery.entity_id, delivery.object_id) == (body["data"]["id"], body["data"]["object_id"])
        found.append((delivery.event_type, body["data"]))
    return found


def data(entity_id: int, object_id: int, change: str | None = None) -> dict:
    """`data` as document 3 has it: `change` only where it applies, in the core's order."""
    return {"id": entity_id, **({"change": change} if change else {}), "object_id": object_id}


@pytest.fixture
def hook(org):
    return hook_of(org)


@pytest.fixture
def plane(org):
    return ObjectFactory(organization=org, registration="SE-KBA")


@pytest.fixture
def anna(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg").user


@pytest.fixture
def erik(org):
    return MemberFactory(organization=org, user__first_name="Erik", user__last_name="Lund").user


START, END = at(2026, 11, 30, 9, 0), at(2026, 11, 30, 10, 0)  # after FROZEN_AT: not ended


def book(plane, start=START, end=END, **fields) -> Booking:
    return BookingFactory(organization=plane.organization, object=plane, start_at=start, end_at=end, **fields)


# --- bookings ----------------------------------------------------------------------------------------------


def test_booking_create_records_booking_create(hook, plane, anna):
    booking = booking_create(object=plane, user=anna, start_at=at(2026, 11, 30, 9, 0), end_at=at(2026, 11, 30, 10, 0))

    assert events(hook) == [("booking.create", data(booking.pk, plane.pk))]


@pytest.mark.parametrize(
    "change",
    [
        {"start_at": at(2026, 11, 30, 8, 0)},
        {"end_at": at(2026, 11, 30, 11, 0)},
        {"user": "erik"},
        {"student": "erik"},
        {"object": "glider"},
    ],
    ids=["start", "end", "booker", "student", "object"],
)
def test_booking_update_records_a_change_of_time_object_or_person(org, hook, plane, erik, change):
    glider = ObjectFactory(organization=org, registration="SE-UXA")
    booking = book(plane)
    named = {"erik": erik, "glider": glider}
    changes = {name: named.get(value, value) for name, value in change.items()}

    updated = booking_update(booking=booking, **changes)

    assert updated.pk == booking.pk
    object_id = glider.pk if "object" in change else plane.pk
    assert events(hook) == [("booking.update", data(booking.pk, object_id))]


def test_booking_update_of_only_type_comment_or_expected_time_records_nothing(hook, plane):
    booking = book(plane)

    booking_update(booking=booking, type="SKOL", comment="Circuits", expected_airborne=Decimal("1.25"))
    booking_update(booking=booking, start_at=booking.start_at)  # nothing changed at all

    booking.refresh_from_db()
    assert (booking.type, booking.comment) == ("SKOL", "Circuits")
    assert events(hook) == []


def test_a_move_into_the_queue_is_a_new_booking_told_as_delete_and_create(hook, plane, anna, erik):
    booking = book(plane, user=anna, created_by=erik, comment="Kept")

    moved = booking_update(booking=booking, is_primary=False, end_at=at(2026, 11, 30, 10, 30))

    assert moved.pk != booking.pk
    assert not Booking.objects.filter(pk=booking.pk).exists()
    stored = Booking.objects.get(pk=moved.pk)
    assert (stored.is_primary, stored.end_at, stored.user, stored.comment) == (
        False,
        at(2026, 11, 30, 10, 30),
        anna,
        "Kept",
    )
    assert (stored.created_at, stored.created_by) == (booking.created_at, erik)
    assert events(hook) == [
        ("booking.delete", data(booking.pk, plane.pk)),
        ("booking.create", data(moved.pk, plane.pk)),
    ]


def test_a_move_out_of_the_queue_is_an_update_of_the_same_booking(hook, plane):
    booking = book(plane, is_primary=False)

    updated = booking_update(booking=booking, is_primary=True)

    assert updated.pk == booking.pk and updated.is_primary
    assert events(hook) == [("booking.update", data(booking.pk, plane.pk))]


def test_booking_delete_records_booking_delete(hook, plane):
    booking = book(plane)
    booking_id = booking.pk

    booking_delete(booking=booking)

    assert events(hook) == [("booking.delete", data(booking_id, plane.pk))]


def test_refused_booking_writes_record_nothing(org, other_org, hook, plane, anna):
    outsider = MemberFactory(organization=other_org).user
    booking = book(plane)
    with pytest.raises(ServiceError):
        booking_create(object=plane, user=outsider, start_at=at(2026, 11, 30, 9, 0), end_at=at(2026, 11, 30, 10, 0))
    with pytest.raises(ServiceError):
        booking_update(booking=booking, end_at=booking.start_at)
    with pytest.raises(ServiceError):
        booking_update(booking=booking, is_primary=False, user=outsider)  # a refused queue move keeps the booking
    assert Booking.objects.filter(pk=booking.pk, is_primary=True).exists()
    booking_delete(booking=booking)
    Delivery.objects.all().delete()
    with pytest.raises(ServiceError) as refused:
        booking_delete(booking=booking)
    assert refused.value.code == 10100

    assert events(hook) == []


def test_a_webhook_hears_only_what_it_subscribes_to(org, plane, anna):
    flights_only = hook_of(org, subscribes_bookings=False, subscribes_remarks=False)

    booking_create(object=plane, user=anna, start_at=at(2026, 11, 30, 9, 0), end_at=at(2026, 11, 30, 10, 0))
    remark_create(object=plane, description="Flat tyre", category=1, by=anna)
    flight = flight_create(object=plane, date=dt.date(2026, 11, 20))

    assert events(flights_only) == [("flightlog.create", data(flight.pk, plane.pk))]


def test_booking_create_costs_the_same_queries_for_one_webhook_and_many(
    org, plane, anna, django_assert_max_num_queries
):
    """The webhooks are read in one query and their deliveries written in one: savepoint, the booker's
    membership, the booking, the webhooks, the deliveries, release."""

    def create_counted(day: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            booking_create(object=plane, user=anna, start_at=at(2026, 12, day, 9, 0), end_at=at(2026, 12, day, 10, 0))
        return len(queries)

    hook_of(org)
    one = create_counted(1)
    for _ in range(9):
        hook_of(org)
    with django_assert_max_num_queries(6):
        booking_create(object=plane, user=anna, start_at=at(2026, 12, 2, 9, 0), end_at=at(2026, 12, 2, 10, 0))
    assert create_counted(3) == one
    assert Delivery.objects.count() == 1 + 10 + 10


# --- shared objects ---------------------------------------------------------------------------------------


def test_events_on_a_shared_object_reach_the_sharing_organizations_webhook_with_its_id(org, hook, plane, anna):
    guest_club = OrganizationFactory(name="Gästklubben")
    ObjectShareFactory(object=plane, organization=guest_club)
    guest_hook = hook_of(guest_club)
    stranger_hook = hook_of(OrganizationFactory())
    guest = MemberFactory(organization=guest_club).user

    booking = booking_create(object=plane, user=guest, start_at=at(2026, 11, 30, 9, 0), end_at=at(2026, 11, 30, 10, 0))
    remark = remark_create(object=plane, description="Oil leak", category=2, by=guest)
    remark_acknowledge(remark=remark, by=anna)

    expected = [
        ("booking.create", data(booking.pk, plane.pk)),
        ("remark.create", data(remark.pk, plane.pk)),
        ("remark.update", data(remark.pk, plane.pk, "acknowledged")),
    ]
    assert events(hook) == expected
    assert events(guest_hook) == expected  # events() checks organization.id is the guest club's
    assert events(stranger_hook) == []


# --- the flight log ----------------------------------------------------------------------------------------


def test_flight_create_update_and_delete_record_their_events(hook, plane, anna):
    pilot = anna.members.get()
    flight = flight_create(
        object=plane,
        date=dt.date(2026, 11, 20),
        blockoff_at=at(2026, 11, 20, 10, 0),
        blockon_at=at(2026, 11, 20, 11, 0),
        pilot=pilot,
    )
    flight_update(flight=flight, comment="Corrected", pilot=pilot)
    flight_update(flight=flight, comment="Corrected", blockon_at=at(2026, 11, 20, 11, 0))  # nothing changed
    flight_id = flight.pk
    flight_delete(flight=flight)

    assert events(hook) == [
        ("flightlog.create", data(flight_id, plane.pk)),
        ("flightlog.update", data(flight_id, plane.pk)),
        ("flightlog.delete", data(flight_id, plane.pk)),
    ]


def test_a_refused_flight_records_nothing(hook, plane):
    flight = FlightFactory(organization=plane.organization, object=plane)
    with pytest.raises(ServiceError):
        flight_create(object=plane, date=dt.date(2026, 11, 20), number_of_flights=0)
    with pytest.raises(ServiceError):
        flight_update(flight=flight, arrival_tachometer=Decimal("1.00"))

    assert events(hook) == []


def test_endorsing_records_an_update_with_change_endorsed(hook, plane, anna, frozen_time):
    flight = FlightFactory(organization=plane.organization, object=plane)

    endorsed = flight_endorse(flight=flight, by=anna)

    flight.refresh_from_db()
    assert (flight.endorsed_at, flight.endorsed_by) == (FROZEN_AT, anna)
    assert endorsed.endorsed_at == FROZEN_AT
    assert events(hook) == [("flightlog.update", data(flight.pk, plane.pk, "endorsed"))]


def test_an_endorsed_flight_is_locked_and_its_refusals_record_nothing(hook, plane, anna):
    flight = FlightFactory(organization=plane.organization, object=plane, comment="As flown")
    flight_endorse(flight=flight, by=anna)
    Delivery.objects.all().delete()
    before = BookableObject.objects.values("airborne_minutes", "block_minutes", "tach_hours", "landings").get(
        pk=plane.pk
    )

    for attempt in (
        lambda: flight_update(flight=flight, comment="Changed"),
        lambda: flight_delete(flight=flight),
        lambda: flight_endorse(flight=flight, by=anna),
    ):
        with pytest.raises(ServiceError) as refused:
            attempt()
        assert (refused.value.code, refused.value.error.status) == (10105, 409)

    flight.refresh_from_db()
    assert (flight.comment, flight.endorsed_by) == ("As flown", anna)
    after = BookableObject.objects.values("airborne_minutes", "block_minutes", "tach_hours", "landings").get(
        pk=plane.pk
    )
    assert after == before
    assert events(hook) == []


def test_endorsing_a_deleted_flight_is_not_found(hook, plane, anna):
    flight = FlightFactory(organization=plane.organization, object=plane)
    FlightLogEntry.objects.filter(pk=flight.pk).delete()

    with pytest.raises(ServiceError) as refused:
        flight_endorse(flight=flight, by=anna)
    assert refused.value.code == 10100
    assert events(hook) == []


# --- remarks ------------------------------------------------------------------------------------------------


def test_remark_create_and_each_step_record_their_events(hook, plane, anna):
    remark = remark_create(object=plane, description="Left brake squeaks", category=1, by=anna)
    remark_acknowledge(remark=remark, by=anna)
    remark_comment(remark=remark, text="Ordered new pads", by=anna)
    remark_close(remark=remark, by=anna)

    assert events(hook) == [
        ("remark.create", data(remark.pk, plane.pk)),
        ("remark.update", data(remark.pk, plane.pk, "acknowledged")),
        ("remark.update", data(remark.pk, plane.pk, "commented")),
        ("remark.update", data(remark.pk, plane.pk, "closed")),
    ]


def test_refused_remark_steps_record_nothing(hook, plane, anna):
    remark = RemarkFactory(organization=plane.organization, object=plane, state="closed")
    with pytest.raises(ServiceError):
        remark_create(object=plane, description="   ", category=1, by=anna)
    for step in (remark_acknowledge, remark_close):
        with pytest.raises(ServiceError):
            step(remark=remark, by=anna)
    with pytest.raises(ServiceError):
        remark_comment(remark=remark, text="Too late", by=anna)

    assert events(hook) == []


# --- deleting an object ------------------------------------------------------------------------------------


def test_deleting_an_object_tells_its_unfinished_bookings_to_owner_and_sharing_clubs(
    org, hook, plane, anna, frozen_time
):
    guest_club = OrganizationFactory(name="Gästklubben")
    ObjectShareFactory(object=plane, organization=guest_club)
    guest_hook = hook_of(guest_club)
    other_plane = ObjectFactory(organization=org)
    book(plane, at(2026, 11, 24, 9, 0), at(2026, 11, 24, 10, 0))  # ended
    book(plane, at(2026, 11, 25, 10, 0), at(2026, 11, 25, 12, 0))  # ended at FROZEN_AT's minute (12:00:00.25)
    running = book(plane, at(2026, 11, 25, 11, 0), at(2026, 11, 25, 13, 0))
    coming = book(plane, at(2026, 12, 1, 9, 0), at(2026, 12, 1, 10, 0))
    elsewhere = book(other_plane, at(2026, 12, 1, 9, 0), at(2026, 12, 1, 10, 0))
    plane_id = plane.pk

    object_delete(object=plane)

    assert not BookableObject.objects.filter(pk=plane_id).exists()
    assert list(Booking.objects.all()) == [elsewhere]
    expected = [("booking.delete", data(running.pk, plane_id)), ("booking.delete", data(coming.pk, plane_id))]
    assert events(hook) == expected
    assert events(guest_hook) == expected


def test_an_object_with_logged_flights_is_not_deleted_and_nothing_is_told(hook, plane, frozen_time):
    book(plane, at(2026, 12, 1, 9, 0), at(2026, 12, 1, 10, 0))
    FlightFactory(organization=plane.organization, object=plane)

    with pytest.raises(ServiceError) as refused:
        object_delete(object=plane)

    assert (refused.value.code, refused.value.error.status) == (10106, 409)
    assert BookableObject.objects.filter(pk=plane.pk).exists() and Booking.objects.exists()
    assert events(hook) == []


# --- the organization website -----------------------------------------------------------------------------


@pytest.fixture
def client(admin):
    return web(admin)


def test_the_website_deletes_objects_through_the_service(client, hook, org, frozen_time):
    one, two = ObjectFactory(organization=org), ObjectFactory(organization=org)
    first, second = book(one, at(2026, 12, 1, 9, 0), at(2026, 12, 1, 10, 0)), book(two)
    one_id, two_id = one.pk, two.pk

    response = client.post(f"{OBJECTS}/{one.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    response = client.post(f"{OBJECTS}/", {"action": "delete_selected", "_selected_action": [two.pk], "post": "yes"})
    assert response.status_code == 302

    assert not BookableObject.objects.filter(pk__in=[one_id, two_id]).exists()
    assert events(hook) == [("booking.delete", data(first.pk, one_id)), ("booking.delete", data(second.pk, two_id))]


def test_the_website_moves_a_booking_into_the_queue_as_a_new_booking(client, hook, plane, anna):
    booking = book(plane, user=anna)
    page = client.get(f"{BOOKINGS}/{booking.pk}/change/")
    sent = form_data(page)
    for name in ("start_at", "end_at"):  # the split date and time boxes, in Stockholm's time
        value = getattr(booking, name).astimezone(dt.timezone(dt.timedelta(hours=1)))
        sent.pop(name, None)
        sent.update({f"{name}_0": value.strftime("%Y-%m-%d"), f"{name}_1": value.strftime("%H:%M")})
    sent.pop("is_primary")
    sent["_continue"] = "Save and continue editing"

    response = client.post(f"{BOOKINGS}/{booking.pk}/change/", sent, follow=True)

    moved = Booking.objects.get()
    assert response.redirect_chain == [(f"{BOOKINGS}/{moved.pk}/change/", 302)]
    assert any("moved into the queue" in message for message in shown_messages(response))
    assert events(hook) == [
        ("booking.delete", data(booking.pk, plane.pk)),
        ("booking.create", data(moved.pk, plane.pk)),
    ]


def test_the_website_deletes_bookings_through_the_service(client, hook, plane):
    one, two = book(plane), book(plane, at(2026, 12, 2, 9, 0), at(2026, 12, 2, 10, 0))
    ids = sorted([one.pk, two.pk])

    response = client.post(f"{BOOKINGS}/", {"action": "delete_selected", "_selected_action": ids, "post": "yes"})

    assert response.status_code == 302 and not Booking.objects.exists()
    assert sorted(events(hook), key=lambda event: event[1]["id"]) == [
        ("booking.delete", data(ids[0], plane.pk)),
        ("booking.delete", data(ids[1], plane.pk)),
    ]


def test_the_endorse_action_endorses_the_selected_flights(client, admin, hook, plane, frozen_time):
    first, second = (FlightFactory(organization=plane.organization, object=plane) for _ in range(2))
    flight_endorse(flight=second, by=None)
    Delivery.objects.all().delete()

    response = client.post(
        f"{FLIGHTS}/", {"action": "endorse_selected", "_selected_action": [first.pk, second.pk]}, follow=True
    )

    first.refresh_from_db()
    assert (first.endorsed_at, first.endorsed_by) == (FROZEN_AT, admin)
    assert "Flights endorsed: 1" in shown_messages(response)
    assert any(message.startswith("Already endorsed") for message in shown_messages(response))
    assert events(hook) == [("flightlog.update", data(first.pk, plane.pk, "endorsed"))]
    listing = client.get(f"{FLIGHTS}/", {"endorsed": "yes"})
    assert {flight.pk for flight in listing.context["cl"].result_list} == {first.pk, second.pk}
    assert "Karin Lindqvist" in listing.content.decode()  # the endorser by name


def test_the_endorse_button_saves_the_page_then_endorses(client, admin, hook, plane):
    flight = FlightFactory(organization=plane.organization, object=plane)
    sent = form_data(client.get(f"{FLIGHTS}/{flight.pk}/change/"))
    sent.update(comment="Signed off", _endorse="Endorse")

    response = client.post(f"{FLIGHTS}/{flight.pk}/change/", sent, follow=True)

    assert response.redirect_chain == [(f"{FLIGHTS}/{flight.pk}/change/", 302)], page_errors(response)
    assert "The flight was endorsed." in shown_messages(response)
    flight.refresh_from_db()
    assert (flight.comment, flight.endorsed_by) == ("Signed off", admin)
    assert events(hook) == [
        ("flightlog.update", data(flight.pk, plane.pk)),
        ("flightlog.update", data(flight.pk, plane.pk, "endorsed")),
    ]


def test_the_website_shows_an_endorsed_flight_read_only_and_refuses_changes(client, admin, hook, plane):
    flight = FlightFactory(organization=plane.organization, object=plane, comment="As flown")
    flight_endorse(flight=flight, by=admin)
    Delivery.objects.all().delete()

    page = client.get(f"{FLIGHTS}/{flight.pk}/change/")
    assert page.status_code == 200 and not page.context["has_change_permission"]
    html = page.content.decode()
    assert "Karin Lindqvist" in html and "11:00" in html  # endorser by name; block off 10:00 UTC is 11:00 local
    assert 'name="_save"' not in html and 'name="_endorse"' not in html
    sent = form_data(page)
    sent.update(comment="Changed")
    assert client.post(f"{FLIGHTS}/{flight.pk}/change/", sent).status_code == 403
    assert client.post(f"{FLIGHTS}/{flight.pk}/delete/", {"post": "yes"}).status_code == 403
    client.post(f"{FLIGHTS}/", {"action": "delete_selected", "_selected_action": [flight.pk], "post": "yes"})

    flight.refresh_from_db()
    assert flight.comment == "As flown"
    assert events(hook) == []


# --- a deleted login -------------------------------------------------------------------------------------------


def test_a_deleted_login_tells_its_bookings_gone_and_its_student_bookings_changed(
    org, hook, plane, anna, erik, frozen_time
):
    from accounts.models import Member
    from accounts.services import user_delete

    own = book(plane, user=anna)
    ended = book(plane, start=at(2026, 1, 1, 9, 0), end=at(2026, 1, 1, 10, 0), user=anna)
    taught = book(plane, user=erik, student=anna)

    user_delete(member=Member.objects.get(organization=org, user=anna))

    assert not Booking.objects.filter(pk__in=[own.pk, ended.pk]).exists()
    # Every booking of the login goes, ended ones too (only a deleted aircraft limits it to those not ended).
    assert events(hook) == [
        ("booking.delete", data(ended.pk, plane.pk)),
        ("booking.delete", data(own.pk, plane.pk)),
        ("booking.update", data(taught.pk, plane.pk)),
    ]


def test_support_deleting_a_club_tells_the_clubs_its_objects_are_shared_with(org, plane, anna, frozen_time):
    from accounts.models import Organization
    from tests.admin_fixtures import make_superuser

    sharing = OrganizationFactory()
    ObjectShareFactory(object=plane, organization=sharing)
    theirs = hook_of(sharing)
    booking = book(plane, user=anna)

    reply = web(make_superuser()).post(f"{ADMIN}/accounts/organization/{org.pk}/delete/", {"post": "yes"}, secure=True)

    assert reply.status_code == 302 and not Organization.objects.filter(pk=org.pk).exists()
    assert events(theirs) == [("booking.delete", data(booking.pk, plane.pk))]


def test_a_booking_moved_to_another_object_is_told_to_the_old_objects_clubs_too(org, hook, plane, anna):
    """A club that shared only the old object learns that the booking left it; each webhook hears it once."""
    sharing_old = OrganizationFactory()
    ObjectShareFactory(object=plane, organization=sharing_old)
    theirs = hook_of(sharing_old)
    other_plane = ObjectFactory(organization=org, registration="SE-KBB")
    booking = book(plane, user=anna)

    booking_update(booking=booking, object=other_plane)

    assert events(theirs) == [("booking.update", data(booking.pk, other_plane.pk))]
    assert events(hook) == [("booking.update", data(booking.pk, other_plane.pk))]
