"""The booking rules of ../shared/DECISIONS.md "Booking rules" and docs/decisions.md §5 "Bookings"
(bookings/rules.py), each through the Mobile API as an app meets them: the first rule that fails is 409 10300
with `errors: [{code, message}]` (no `field`) in the language of Accept-Language; nothing is saved. Each rule's
text in sv, en, nb and da."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.files.base import ContentFile

from accounts.models import UserExpiryDate
from bookings.models import Booking
from tests.factories import ExpiryDateTypeFactory, MemberFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory, TransactionFactory
from tests.helpers import assert_problem
from tests.mobile_booking_helpers import (  # noqa: F401 (the fixtures of these tests)
    aircraft_fixture,
    api_fixture,
    app_client_fixture,
    at,
    booking_of,
    club_fixture,
    katana_fixture,
    member_fixture,
    now_fixture,
    other_club_fixture,
)

pytestmark = pytest.mark.django_db


def refused_with(response, text: str) -> None:
    """409 10300 whose only error is the rule's text, without `field`; the detail says the same."""
    body = assert_problem(response, 409, 10300)
    assert body["errors"] == [{"code": 10300, "message": text}]
    assert body["detail"] == text


def made(response, *, primary: bool = True) -> dict:
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["is_primary"] is primary and data["is_queue"] is not primary
    return response.json()


# --- rule 1: an object the member sees ---------------------------------------------------------------------------


def test_rule_1_another_clubs_an_inactive_or_a_missing_object_cannot_be_booked(api, club, other_club, now):
    for booking_object in (ObjectFactory(organization=other_club), ObjectFactory(organization=club, active=False)):
        refused_with(api.book(booking_object.pk, at(14), at(15)), "You cannot book this object.")
    refused_with(api.book(10**12, at(14), at(15)), "You cannot book this object.")
    assert not Booking.objects.exists()


def test_rule_1_an_object_shared_with_the_club_can_be_booked(api, club, other_club, member, now):
    shared = ObjectFactory(organization=other_club)
    ObjectShareFactory(object=shared, organization=club)

    data = made(api.book(shared.pk, at(14), at(15)))["data"]

    assert data["object"]["organization"]["id"] == other_club.pk
    assert data["timezone"] == "Europe/Oslo"


# --- rule 2: times -------------------------------------------------------------------------------------------------


def test_rule_2_the_end_must_be_after_the_start_in_whole_minutes(api, aircraft, now):
    text = "The booking must end after it starts."
    refused_with(api.book(aircraft.pk, at(15), at(14)), text)
    refused_with(api.book(aircraft.pk, at(15), at(15)), text)
    seconds = api.post(
        "/bookings", {"object_id": aircraft.pk, "start_at": "2026-11-25T15:00:10Z", "end_at": "2026-11-25T15:00:50Z"}
    )
    refused_with(seconds, text)


def test_rule_2_the_start_may_be_at_most_five_minutes_ago(api, aircraft, frozen_time):
    frozen_time.move_to(dt.datetime(2026, 11, 25, 12, 0, 59, tzinfo=dt.UTC))
    refused_with(api.book(aircraft.pk, at(11, 54), at(13)), "A booking cannot start in the past.")
    made(api.book(aircraft.pk, at(11, 55), at(13)))


def test_rule_2_the_objects_longest_booking(api, aircraft, now):
    aircraft.max_booking_length = 150
    aircraft.save()

    refused_with(
        api.book(aircraft.pk, at(14), at(16, 31)), "The booking is longer than this object may be booked for (2:30)."
    )
    made(api.book(aircraft.pk, at(14), at(16, 30)))


# --- rule 3: balance -----------------------------------------------------------------------------------------------


def test_rule_3_the_balance_must_reach_the_clubs_minimum(api, club, member, aircraft, now):
    club.booking_minimum_balance = Decimal("100")
    club.save()
    TransactionFactory(organization=club, user=member.user, amount=Decimal("99.99"))

    refused_with(
        api.book(aircraft.pk, at(14), at(15)), "Your balance is below 100.00 kr, the least your club needs to book."
    )
    TransactionFactory(organization=club, user=member.user, amount=Decimal("0.01"))
    made(api.book(aircraft.pk, at(14), at(15)))


def test_rule_3_without_a_minimum_any_balance_books(api, club, member, aircraft, now):
    TransactionFactory(organization=club, user=member.user, amount=Decimal("-5000"))
    made(api.book(aircraft.pk, at(14), at(15)))


def test_rule_3_counts_only_the_members_transactions_in_the_club(api, club, other_club, member, aircraft, now):
    club.booking_minimum_balance = Decimal("0")
    club.save()
    MemberFactory(organization=other_club, user=member.user)
    TransactionFactory(organization=other_club, user=member.user, amount=Decimal("-500"))
    made(api.book(aircraft.pk, at(14), at(15)))


# --- rule 4: expiry dates --------------------------------------------------------------------------------------------


@pytest.fixture
def medical(club):
    return ExpiryDateTypeFactory(organization=club, name="Medical", booking_required=True)


def dated(member, date_type, day: dt.date, *, image: bool = False):
    row = UserExpiryDate(member=member, type=date_type, expiry_date=day)
    if image:
        row.image.save("scan.pdf", ContentFile(b"%PDF-1.4"), save=False)
    row.save()
    return row


def test_rule_4_a_required_date_must_exist(api, medical, aircraft, now):
    refused_with(api.book(aircraft.pk, at(14), at(15)), "You have no Medical date, which booking needs.")


def test_rule_4_the_date_must_last_through_the_bookings_last_local_day(api, member, medical, aircraft, now):
    dated(member, medical, dt.date(2026, 11, 25))
    # 22:30 to 23:30 UTC ends at 00:30 on the 26th in Stockholm.
    refused_with(
        api.book(aircraft.pk, at(22, 30), at(23, 30)), "Your Medical date (2026-11-25) comes before the booking ends."
    )
    # Ending at local midnight, the booking's last day is the 25th.
    made(api.book(aircraft.pk, at(22, 0), at(23, 0)))


def test_rule_4_an_image_is_needed_where_the_type_requires_one(api, member, medical, aircraft, now, media):
    medical.image_required = True
    medical.save()
    row = dated(member, medical, dt.date(2027, 1, 1))

    refused_with(
        api.book(aircraft.pk, at(14), at(15)), "Your Medical date needs an image before it counts for booking."
    )
    row.image.save("scan.pdf", ContentFile(b"%PDF-1.4"))
    made(api.book(aircraft.pk, at(14), at(15)))


def test_rule_4_types_not_required_or_excluding_the_object_are_not_checked(api, club, aircraft, katana, now):
    ExpiryDateTypeFactory(organization=club, name="Licence", booking_required=False)
    ExpiryDateTypeFactory(
        organization=club, name="Type rating", booking_required=True, booking_excluded_object_ids=[aircraft.pk]
    )

    made(api.book(aircraft.pk, at(14), at(15)))
    refused_with(api.book(katana.pk, at(14), at(15)), "You have no Type rating date, which booking needs.")


def test_rule_4_warning_only_books_and_warns(api, club, member, medical, aircraft, now):
    medical.booking_warning_only = True
    medical.save()
    dated(member, medical, dt.date(2026, 11, 20))

    reply = made(api.book(aircraft.pk, at(14), at(15)))

    assert reply["messages"] == [
        {"kind": "info", "text": "Your booking is made."},
        {"kind": "info", "text": "Your Medical date (2026-11-20) comes before the booking ends."},
    ]


def test_rule_4_another_clubs_types_do_not_apply(api, other_club, aircraft, now):
    ExpiryDateTypeFactory(organization=other_club, name="Medical", booking_required=True)
    made(api.book(aircraft.pk, at(14), at(15)))


# --- rule 5: overlaps and the queue --------------------------------------------------------------------------------


def test_rule_5_an_overlap_is_queued_where_the_object_allows_a_queue(api, club, aircraft, now):
    booking_of(club, aircraft, start=at(14), end=at(16))

    reply = made(api.book(aircraft.pk, at(15), at(17)), primary=False)

    assert reply["messages"] == [
        {"kind": "info", "text": "The object is already booked at that time: your booking is in the queue."}
    ]
    assert reply["data"]["permissions"]["queue_allowed"] is True


def test_rule_5_an_overlap_is_refused_where_the_object_has_no_queue(api, club, katana, now):
    booking_of(club, katana, start=at(14), end=at(16))

    refused_with(api.book(katana.pk, at(15, 59), at(17)), "The object is already booked at that time.")
    assert Booking.objects.count() == 1


def test_rule_5_touching_bookings_and_queue_bookings_do_not_overlap(api, club, katana, aircraft, now):
    booking_of(club, katana, start=at(14), end=at(16))
    booking_of(club, katana, start=at(17), end=at(18), is_primary=False)
    booking_of(club, aircraft, start=at(14), end=at(16))

    made(api.book(katana.pk, at(16), at(18)))
    made(api.book(katana.pk, at(13), at(14)))
    made(api.book(aircraft.pk, at(16), at(17)))


def test_the_first_failing_rule_speaks(api, club, member, katana, now):
    club.booking_minimum_balance = Decimal("10")
    club.save()
    booking_of(club, katana, start=at(14), end=at(16))
    # Rules 2, 3 and 5 all fail: rule 2 is told.
    refused_with(api.book(katana.pk, at(11), at(15)), "A booking cannot start in the past.")
    refused_with(
        api.book(katana.pk, at(14), at(15)), "Your balance is below 10.00 kr, the least your club needs to book."
    )


# --- cut and cancel ----------------------------------------------------------------------------------------------


def test_cut_only_while_going_on(api, club, member, aircraft, frozen_time):
    frozen_time.move_to(dt.datetime(2026, 11, 25, 12, 0, 40, tzinfo=dt.UTC))
    coming = booking_of(club, aircraft, user=member.user, start=at(13), end=at(14))
    ended = booking_of(club, aircraft, user=member.user, start=at(10), end=at(12))
    just_begun = booking_of(club, aircraft, user=member.user, start=at(12), end=at(13))
    text = "Only a booking that is going on can be cut."

    refused_with(api.post(f"/bookings/{coming.pk}/cut"), text)
    refused_with(api.post(f"/bookings/{ended.pk}/cut"), text)
    refused_with(
        api.post(f"/bookings/{just_begun.pk}/cut"), "The booking began less than a minute ago: it cannot be cut yet."
    )
    frozen_time.move_to(dt.datetime(2026, 11, 25, 12, 1, 0, tzinfo=dt.UTC))
    assert api.post(f"/bookings/{just_begun.pk}/cut").json()["data"]["end_at"] == "2026-11-25T12:01:00Z"


def test_only_the_booker_or_maker_cuts_or_cancels(api, club, member, aircraft, now):
    others = booking_of(club, aircraft, student=member.user, start=at(11), end=at(16))
    made_for_me = booking_of(club, aircraft, created_by=member.user, start=at(16), end=at(17))
    text = "Only the member who made the booking can change it."

    refused_with(api.post(f"/bookings/{others.pk}/cut"), text)
    refused_with(api.post(f"/bookings/{others.pk}/cancel"), text)
    assert api.post(f"/bookings/{made_for_me.pk}/cancel").status_code == 200


def test_cancel_only_before_the_end(api, club, member, aircraft, now):
    ended = booking_of(club, aircraft, user=member.user, start=at(10), end=at(12))
    going_on = booking_of(club, aircraft, user=member.user, start=at(11), end=at(13))

    refused_with(api.post(f"/bookings/{ended.pk}/cancel"), "A booking that has ended cannot be cancelled.")
    assert api.post(f"/bookings/{going_on.pk}/cancel").status_code == 200


def test_cancel_needs_a_reason_where_the_club_requires_one(api, club, member, aircraft, now):
    club.booking_cancel_reason_required = True
    club.save()
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(15))
    text = "Give a reason for cancelling the booking."

    refused_with(api.post(f"/bookings/{booking.pk}/cancel"), text)
    refused_with(api.post(f"/bookings/{booking.pk}/cancel", {"reason": "   "}), text)
    assert Booking.objects.exists()
    assert api.post(f"/bookings/{booking.pk}/cancel", {"reason": "Sick"}).status_code == 200


# --- languages -----------------------------------------------------------------------------------------------------

# Accept-Language -> (a rule's text, the message of a booking made, of a queue booking, of a cancel).
LANGUAGES = {
    "en": (
        "The object is already booked at that time.",
        "Your booking is made.",
        "The object is already booked at that time: your booking is in the queue.",
        "Your booking is cancelled.",
    ),
    "sv": (
        "Objektet är redan bokat den tiden.",
        "Din bokning är gjord.",
        "Objektet är redan bokat den tiden: din bokning står i kö.",
        "Din bokning är avbokad.",
    ),
    "nb": (
        "Objektet er allerede booket på det tidspunktet.",
        "Bookingen din er gjort.",
        "Objektet er allerede booket på det tidspunktet: bookingen din står i kø.",
        "Bookingen din er avbestilt.",
    ),
    "da": (
        "Objektet er allerede booket på det tidspunkt.",
        "Din booking er foretaget.",
        "Objektet er allerede booket på det tidspunkt: din booking står i kø.",
        "Din booking er aflyst.",
    ),
}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_rule_texts_and_messages_speak_the_members_language(api, club, aircraft, katana, now, language):
    rule, booked, queued, cancelled = LANGUAGES[language]
    header = {"HTTP_ACCEPT_LANGUAGE": f"{language},en;q=0.5"}
    booking_of(club, katana, start=at(14), end=at(16))
    booking_of(club, aircraft, start=at(14), end=at(16))

    refused_with(api.book(katana.pk, at(15), at(17), **header), rule)
    assert api.book(katana.pk, at(16), at(17), **header).json()["messages"] == [{"kind": "info", "text": booked}]
    reply = api.book(aircraft.pk, at(15), at(17), **header).json()
    assert reply["messages"] == [{"kind": "info", "text": queued}]
    cancel = api.post(f"/bookings/{reply['data']['id']}/cancel", **header)
    assert cancel.json()["messages"] == [{"kind": "info", "text": cancelled}]


def test_english_without_accept_language_or_for_another_language(api, club, katana, now):
    booking_of(club, katana, start=at(14), end=at(16))
    refused_with(api.book(katana.pk, at(15), at(17), HTTP_ACCEPT_LANGUAGE="de"), LANGUAGES["en"][0])
    refused_with(api.book(katana.pk, at(15), at(17)), LANGUAGES["en"][0])


def rule_texts() -> list[str]:
    """Every text of the booking rules for members (msgids), read from the source of bookings.rules (the
    actions) and bookings.rule_checks (the checks)."""
    import ast
    import inspect

    from bookings import rule_checks, rules

    return [
        node.args[0].value
        for module in (rules, rule_checks)
        for node in ast.walk(ast.parse(inspect.getsource(module)))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_" and node.args
    ]


@pytest.mark.parametrize("language", ["sv", "nb", "da"])
def test_every_rule_text_and_message_is_translated(language):
    from django.utils import translation

    texts = rule_texts()
    assert len(texts) >= 20
    with translation.override(language):
        untranslated = [text for text in texts if translation.gettext(text) == text]
    assert untranslated == []


def test_a_cut_or_cancel_of_a_booking_gone_meanwhile_is_404_not_500(club, member, aircraft, now):
    from apicore.errors import ServiceError
    from bookings import rules

    going = booking_of(
        club, aircraft, user=member.user, start=now - dt.timedelta(hours=1), end=now + dt.timedelta(hours=1)
    )
    Booking.objects.filter(pk=going.pk).delete()  # cancelled by another request after this one read it
    for action in (lambda: rules.cut(member, going), lambda: rules.cancel(member, going, reason=None)):
        with pytest.raises(ServiceError) as refused:
            action()
        assert refused.value.error.code == 10100
