"""Bookings on the organization website go by the booking rules (bookings.rules.booking_add, booking_change,
booking_remove) under the object's row lock: an administrator's overlapping booking is queued where the object
allows a queue, else refused, never a second primary booking. What an administrator may override (a start in
the past, the length, the booker's balance and expiry dates, the expected airborne time) is overridden on
purpose and said in a notice on the page."""

import datetime as dt
from decimal import Decimal

import pytest

from apicore.errors import ServiceError
from bookings import rules
from bookings.admin import BookingAdmin
from bookings.models import Booking
from tests.admin_booking_fixtures import BOOKINGS, at, book
from tests.admin_booking_fixtures import booking_form as shared_booking_form
from tests.admin_fixtures import form_data, page_errors, shown_messages, web
from tests.factories import ExpiryDateTypeFactory
from tests.factories_operations import TransactionFactory

OVERRIDDEN = "Booking rule overridden: "
QUEUED = "The object is already booked at that time: the booking is in the queue."
TAKEN = "The object is already booked at that time."


@pytest.fixture
def client(admin):
    return web(admin)


def booking_form(plane, user, **fields) -> dict:
    return shared_booking_form(plane, user, day="2026-11-26", **fields)


def change_form(client, booking, **values) -> dict:
    data = form_data(client.get(f"{BOOKINGS}/{booking.pk}/change/"))
    for name in ("start_at", "end_at"):
        data.pop(name, None)
        local = getattr(booking, name).astimezone(dt.timezone(dt.timedelta(hours=1)))
        data[f"{name}_0"], data[f"{name}_1"] = local.strftime("%Y-%m-%d"), local.strftime("%H:%M")
    data.update(values)
    return data


def primaries(plane) -> list[tuple]:
    return list(Booking.objects.filter(object=plane, is_primary=True).values_list("start_at", "end_at"))


def messages_after(client, response) -> list[str]:
    assert response.status_code == 302, page_errors(response)
    return shown_messages(client.get(response["Location"]))


# --- overlap: queued or refused, never a second primary ----------------------------------------------------------


def test_an_administrators_overlapping_booking_is_queued_not_a_second_primary(client, frozen_time, plane, anna, erik):
    first = book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)  # 10:00-12:00 local

    response = client.post(f"{BOOKINGS}/add/", booking_form(plane, erik, start=("2026-11-26", "11:00")))

    shown = messages_after(client, response)
    queued = Booking.objects.get(user=erik)
    assert queued.is_primary is False
    assert primaries(plane) == [(first.start_at, first.end_at)]
    assert QUEUED in shown
    assert not [text for text in shown if text.startswith(OVERRIDDEN)]


def test_an_administrators_overlapping_booking_is_refused_where_the_object_has_no_queue(
    client, frozen_time, plane, anna, erik
):
    plane.queue_allowed = False
    plane.save()
    book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)

    response = client.post(f"{BOOKINGS}/add/", booking_form(plane, erik, start=("2026-11-26", "11:00")))

    assert page_errors(response)[""] == [TAKEN]
    assert not Booking.objects.filter(user=erik).exists()


def test_a_booking_after_the_other_ends_stays_primary(client, frozen_time, plane, anna, erik):
    book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)

    response = client.post(
        f"{BOOKINGS}/add/", booking_form(plane, erik, start=("2026-11-26", "12:00"), end=("2026-11-26", "13:00"))
    )

    shown = messages_after(client, response)
    assert Booking.objects.get(user=erik).is_primary is True
    assert QUEUED not in shown


def test_a_change_into_a_taken_time_is_queued_as_a_new_booking(client, frozen_time, plane, anna, erik):
    book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)
    later = book(plane, at(2026, 11, 26, 12, 0), at(2026, 11, 26, 13, 0), user=erik)

    response = client.post(
        f"{BOOKINGS}/{later.pk}/change/", change_form(client, later, start_at_1="11:00", end_at_1="14:00")
    )

    shown = messages_after(client, response)
    moved = Booking.objects.get(user=erik)
    assert moved.pk != later.pk and moved.is_primary is False
    assert (moved.start_at, moved.end_at) == (at(2026, 11, 26, 10, 0), at(2026, 11, 26, 13, 0))
    assert len(primaries(plane)) == 1
    assert QUEUED in shown


def test_a_change_into_a_taken_time_is_refused_where_the_object_has_no_queue(client, frozen_time, plane, anna, erik):
    plane.queue_allowed = False
    plane.save()
    book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)
    later = book(plane, at(2026, 11, 26, 12, 0), at(2026, 11, 26, 13, 0), user=erik)

    response = client.post(f"{BOOKINGS}/{later.pk}/change/", change_form(client, later, start_at_1="11:00"))

    assert page_errors(response)[""] == [TAKEN]
    later.refresh_from_db()
    assert (later.start_at, later.is_primary) == (at(2026, 11, 26, 12, 0), True)


def test_a_queue_booking_ticked_primary_stays_in_the_queue_while_the_time_is_taken(
    client, frozen_time, plane, anna, erik
):
    book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)
    waiting = book(plane, at(2026, 11, 26, 10, 0), at(2026, 11, 26, 12, 0), user=erik, is_primary=False)

    response = client.post(f"{BOOKINGS}/{waiting.pk}/change/", change_form(client, waiting, is_primary="on"))

    shown = messages_after(client, response)
    waiting.refresh_from_db()
    assert waiting.is_primary is False
    assert len(primaries(plane)) == 1
    assert QUEUED in shown


def test_deleting_a_primary_booking_on_the_website_moves_the_queue_up(client, frozen_time, plane, anna, erik):
    first = book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)
    waiting = book(plane, at(2026, 11, 26, 10, 0), at(2026, 11, 26, 12, 0), user=erik, is_primary=False)

    assert client.post(f"{BOOKINGS}/{first.pk}/delete/", {"post": "yes"}).status_code == 302

    waiting.refresh_from_db()
    assert waiting.is_primary is True


def test_moving_a_primary_booking_away_lets_the_queue_take_its_time(client, frozen_time, plane, anna, erik):
    first = book(plane, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 11, 0), user=anna)
    waiting = book(plane, at(2026, 11, 26, 10, 0), at(2026, 11, 26, 12, 0), user=erik, is_primary=False)

    response = client.post(
        f"{BOOKINGS}/{first.pk}/change/", change_form(client, first, start_at_1="15:00", end_at_1="16:00")
    )

    assert response.status_code == 302, page_errors(response)
    waiting.refresh_from_db()
    assert waiting.is_primary is True
    assert len(primaries(plane)) == 2


# --- overrides: on purpose, and said -------------------------------------------------------------------------------


def test_what_an_administrator_overrides_is_done_and_shown_as_notices(client, org, frozen_time, plane, anna):
    org.booking_minimum_balance = Decimal("0.00")
    org.save()
    plane.max_booking_length = 60
    plane.save()
    TransactionFactory(organization=org, user=anna, amount=Decimal("-200.00"))
    ExpiryDateTypeFactory(organization=org, name="Medical", booking_required=True)

    # 2026-11-25 09:00-11:00 local: begun three hours ago, two hours long; an expected airborne time not asked for.
    data = booking_form(plane, anna, start=("2026-11-25", "09:00"), end=("2026-11-25", "11:00"), expected_airborne="1")
    response = client.post(f"{BOOKINGS}/add/", data)

    shown = messages_after(client, response)
    booking = Booking.objects.get()
    assert (booking.start_at, booking.is_primary, booking.expected_airborne) == (
        at(2026, 11, 25, 8, 0),
        True,
        Decimal("1.00"),
    )
    overridden = [text.removeprefix(OVERRIDDEN) for text in shown if text.startswith(OVERRIDDEN)]
    assert overridden == [
        "Expected airborne time is not used for this object.",
        "The booking starts in the past.",
        "The booking is longer than this object may be booked for (1:00).",
        "The balance of Anna Berg is -200.00 kr, below the 0.00 kr the club needs.",
        "Anna Berg has no Medical date, which booking needs.",
    ]


def test_a_required_expected_airborne_time_is_overridden_too(client, org, frozen_time, plane, anna):
    org.booking_use_expected_airborne = True
    org.save()
    plane.use_expected_airborne = plane.force_expected_time = True
    plane.save()

    shown = messages_after(client, client.post(f"{BOOKINGS}/add/", booking_form(plane, anna)))

    assert f"{OVERRIDDEN}Expected airborne time is required for this object." in shown
    assert Booking.objects.get().expected_airborne is None


def test_a_booking_that_keeps_every_rule_has_no_notice(client, frozen_time, plane, anna):
    shown = messages_after(client, client.post(f"{BOOKINGS}/add/", booking_form(plane, anna)))
    assert not [text for text in shown if text.startswith(OVERRIDDEN) or text == QUEUED]


def test_the_notices_speak_the_pages_language(client, frozen_time, plane, anna):
    data = booking_form(plane, anna, start=("2026-11-25", "09:00"), end=("2026-11-25", "10:00"))
    response = client.post(f"{BOOKINGS}/add/", data, HTTP_ACCEPT_LANGUAGE="sv")

    assert response.status_code == 302, page_errors(response)
    shown = shown_messages(client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="sv"))
    assert "Bokningsregel åsidosatt: Bokningen börjar i det förflutna." in shown


def test_a_change_that_touches_no_rule_says_nothing_of_the_rules(client, frozen_time, plane, anna):
    past = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna)

    response = client.post(f"{BOOKINGS}/{past.pk}/change/", change_form(client, past, comment="Flown"))

    shown = messages_after(client, response)
    assert not [text for text in shown if text.startswith(OVERRIDDEN)]
    past.refresh_from_db()
    assert past.comment == "Flown"


def test_a_booking_going_on_is_made_longer_without_a_notice_of_its_start(client, frozen_time, plane, anna):
    going_on = book(plane, at(2026, 11, 25, 11, 0), at(2026, 11, 25, 13, 0), user=anna)  # 12:00-14:00 local

    response = client.post(f"{BOOKINGS}/{going_on.pk}/change/", change_form(client, going_on, end_at_1="15:00"))

    shown = messages_after(client, response)
    going_on.refresh_from_db()
    assert going_on.end_at == at(2026, 11, 25, 14, 0)
    assert not [text for text in shown if text.startswith(OVERRIDDEN)]


def test_overriding_is_an_explicit_argument_of_the_rules_not_a_skip(org, frozen_time, plane, anna):
    past = {"object": plane, "user": anna, "start_at": at(2026, 11, 25, 8, 0), "end_at": at(2026, 11, 25, 9, 0)}

    with pytest.raises(ServiceError) as refused:
        rules.booking_add(**past)
    assert (refused.value.code, refused.value.detail) == (10300, "A booking cannot start in the past.")
    assert not Booking.objects.exists()

    outcome = rules.booking_add(**past, override=frozenset({rules.Override.PAST}))
    assert outcome.overridden == [f"{OVERRIDDEN}The booking starts in the past."]
    assert frozenset(rules.Override) == rules.ADMINISTRATOR


def test_the_website_books_through_booking_add_with_the_administrators_overrides(
    client, admin, frozen_time, plane, anna, monkeypatch
):
    calls = []
    real = rules.booking_add

    def spy(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(BookingAdmin, "create_service", spy)

    assert client.post(f"{BOOKINGS}/add/", booking_form(plane, anna)).status_code == 302

    assert len(calls) == 1
    assert (calls[0]["override"], calls[0]["created_by"], calls[0]["object"]) == (rules.ADMINISTRATOR, admin, plane)


# --- the rules are the domain's: ServiceError, one definition of the expected airborne time ------------------------


def test_the_rules_raise_service_errors_never_the_api_layers(org, anna):
    from apicore.exceptions import ApiError

    member = anna.members.get(organization=org)
    member.organization.booking_enabled = False
    member.locked = True
    for check, code in ((rules.check_booking_on, 10301), (rules.check_not_locked, 10302)):
        with pytest.raises(ServiceError) as refused:
            check(member)
        assert not isinstance(refused.value, ApiError)
        assert refused.value.code == code


@pytest.mark.parametrize("value", [Decimal("1000"), Decimal("-0.5"), Decimal("1.005")])
def test_the_expected_airborne_range_is_one_rule_for_every_caller(org, plane, anna, value):
    from bookings import services

    org.booking_use_expected_airborne = plane.use_expected_airborne = True
    with pytest.raises(ServiceError) as by_the_rules:
        rules.expected_airborne_check(organization=org, booking_object=plane, value=value)
    values = {"object": plane, "user": anna, "start_at": at(2026, 11, 26, 9), "end_at": at(2026, 11, 26, 10)}
    with pytest.raises(ServiceError) as by_the_services:
        services.booking_check({**values, "expected_airborne": value})
    expected = [("expected_airborne", 10006, "expected_airborne must be 0 to 999.99 hours, with at most two decimals.")]
    for refused in (by_the_rules, by_the_services):
        assert [(p.field, p.code, p.message) for p in refused.value.errors] == expected
    # Never overridden: an administrator's booking is refused alike.
    with pytest.raises(ServiceError):
        rules.booking_add(**values, expected_airborne=value, override=rules.ADMINISTRATOR)
