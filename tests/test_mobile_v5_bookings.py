"""GET /mobile/v5/bookings and /bookings/{id}, POST /bookings, /bookings/{id}/cut and /cancel (document 2):
every field of a booking as the member sees it, the parameters and their defaults, the order (queue last),
visibility (own and shared objects, never another club's), booking off, the locked member, bodies and their
refusals, the replies' `messages` and `Location`, webhook events of the writes, and the list's query count.
The rules themselves: tests/test_booking_rules.py."""

import datetime as dt

import pytest

from accounts.models import UserEmail
from bookings.models import Booking
from tests.factories import MemberFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory
from tests.helpers import assert_problem, problem_fields
from tests.mobile_booking_helpers import (  # noqa: F401 (the fixtures of these tests)
    aircraft_fixture,
    api_fixture,
    app_client_fixture,
    at,
    body_of,
    booking_of,
    club_fixture,
    iso,
    katana_fixture,
    member_fixture,
    now_fixture,
    other_club_fixture,
)
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client
from webhooks.models import Delivery
from webhooks.services import webhook_create

pytestmark = pytest.mark.django_db
HOOK = "http://127.0.0.1:9/webhook"  # as in tests/test_webhook_events.py: never called here

# The routes of this module (their contract classes: tests/test_contract_mobile_bookings.py).
ROUTES = {
    "bookings": "/bookings",
    "booking": "/bookings/<id:pk>",
    "booking-cut": "/bookings/<id:pk>/cut",
    "booking-cancel": "/bookings/<id:pk>/cancel",
}
READS = [("GET", ROUTES["bookings"]), ("GET", ROUTES["booking"])]
WRITES = [("POST", ROUTES["bookings"]), ("POST", ROUTES["booking-cut"]), ("POST", ROUTES["booking-cancel"])]


def ms(milliseconds: int) -> dt.timedelta:
    return dt.timedelta(milliseconds=milliseconds)


def address(route: str, pk: int) -> str:
    return route.replace("<id:pk>", str(pk))


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["data"]]


@pytest.fixture
def hook(club, settings):
    """A webhook of the club, to see the events the writes record (never called here)."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    webhook, _token, _key = webhook_create(organization=club, url=HOOK)
    return webhook


# --- one booking, every field ----------------------------------------------------------------------------------


def test_a_booking_shows_every_field_of_document_2(api, club, member, aircraft, now):
    instructor = MemberFactory(
        organization=club,
        member_number="0007",
        user__first_name="Nils",
        user__last_name="Holm",
        user__email_visible=False,
        user__mobile_country_code="",
        user__mobile_initial_number="070",
        user__mobile_number="555",
    )
    UserEmail.objects.create(user=instructor.user, position=0, address="nils@example.se")
    booking = booking_of(
        club,
        aircraft,
        user=instructor.user,
        student=member.user,
        start=at(12, 30),
        end=at(14, 0),
        type="SKOL",
        expected_airborne="1.50",
        seats_left=1,
        comment="Circuits",
        created_by=instructor.user,
        created_at=dt.datetime(2026, 11, 20, 8, 15, 30, tzinfo=dt.UTC),
    )

    response = api.get(f"/bookings/{booking.pk}")

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store"
    assert response.json() == {
        "data": {
            "id": booking.pk,
            "start_at": "2026-11-25T12:30:00Z",
            "end_at": "2026-11-25T14:00:00Z",
            "start_local": "2026-11-25T13:30:00+01:00",
            "end_local": "2026-11-25T15:00:00+01:00",
            "timezone": "Europe/Stockholm",
            "object": {
                "id": aircraft.pk,
                "registration": "SE-KBT",
                "category": {"id": 0, "name": "Aircraft"},
                "organization": {"id": club.pk, "name": "Västerås Flygklubb"},
            },
            "user": {
                "id": instructor.user_id,
                "name": "Nils Holm",
                "member_number": "0007",
                "email": None,
                "mobile": "070555",
            },
            "student": {
                "id": member.user_id,
                "name": "Åsa Öberg",
                "member_number": "0042",
                "email": "asa@example.se",
                "mobile": "+46 701234567",
            },
            "type": "SKOL",
            "is_primary": True,
            "is_queue": False,
            "is_own": True,
            "is_student": True,
            "is_active_now": False,
            "is_passed": False,
            "details_hidden": False,
            # The student did not make the booking: not theirs to change.
            "permissions": {"can_edit": False, "can_cancel": False, "can_cut": False, "queue_allowed": True},
            "expected_airborne": 1.5,
            "seats_left": 1,
            "comment": "Circuits",
            "created_at": "2026-11-20T08:15:30Z",
            "created_by": {"id": instructor.user_id, "name": "Nils Holm"},
        }
    }


def test_empty_values_are_null(api, club, member, aircraft, now):
    booking = booking_of(club, aircraft, user=member.user, start=at(15), end=at(16), comment="")

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert data["student"] is None and data["created_by"] is None
    assert (data["comment"], data["expected_airborne"], data["seats_left"]) == (None, None, None)
    assert data["is_own"] is True and data["is_student"] is False
    assert data["permissions"] == {"can_edit": True, "can_cancel": True, "can_cut": False, "queue_allowed": True}


@pytest.mark.parametrize(
    ("start", "end", "active", "passed", "can_cut", "can_cancel"),
    [
        (at(13), at(14), False, False, False, True),  # to come
        (at(11), at(13), True, False, True, True),  # going on
        (at(12, 0), at(13), True, False, False, True),  # began this minute: nothing to cut yet
        (at(10), at(12), False, True, False, False),  # ended at 12:00, now is 12:00:00.25
        # Times with a fraction of a second, on either side of now (compared to the microsecond, not the
        # second: the reply's texts show whole seconds).
        (at(12) + ms(100), at(13), True, False, False, True),  # began 0.15 s ago
        (at(12) + ms(300), at(13), False, False, False, True),  # begins in 0.05 s
        (at(11), at(12) + ms(200), False, True, False, False),  # ended 0.05 s ago
        (at(11), at(12) + ms(300), True, False, True, True),  # ends in 0.05 s
    ],
)
def test_state_and_permissions_follow_the_clock(
    api, club, member, aircraft, now, start, end, active, passed, can_cut, can_cancel
):
    booking = booking_of(club, aircraft, user=member.user, start=start, end=end)

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert (data["is_active_now"], data["is_passed"]) == (active, passed)
    assert data["permissions"]["can_cut"] is can_cut
    assert data["permissions"]["can_cancel"] is data["permissions"]["can_edit"] is can_cancel


def test_a_locked_member_may_read_but_has_no_permissions(api, club, member, aircraft, now):
    member.locked = True
    member.save()
    booking = booking_of(club, aircraft, user=member.user, start=at(11), end=at(13))

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert data["permissions"] == {"can_edit": False, "can_cancel": False, "can_cut": False, "queue_allowed": True}


def test_another_members_booking_is_not_own_and_not_changeable(api, club, aircraft, katana, now):
    booking = booking_of(club, katana, start=at(11), end=at(13))

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert (data["is_own"], data["is_student"]) == (False, False)
    assert data["permissions"] == {"can_edit": False, "can_cancel": False, "can_cut": False, "queue_allowed": False}
    assert data["user"]["name"] and data["details_hidden"] is False


# --- details hidden ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hidden_by", ["member's club", "object's club"])
def test_hidden_booker_details_leave_names_and_contacts_out(api, club, other_club, member, now, hidden_by):
    shared = ObjectFactory(organization=other_club)
    ObjectShareFactory(object=shared, organization=club)
    (club if hidden_by == "member's club" else other_club).__class__.objects.filter(
        pk=(club if hidden_by == "member's club" else other_club).pk
    ).update(booking_hide_booker_details=True)
    theirs = booking_of(other_club, shared, start=at(15), end=at(16), created_by=None)
    theirs.created_by = theirs.user
    theirs.save()
    mine = booking_of(other_club, shared, user=member.user, start=at(17), end=at(18))

    items = {item["id"]: item for item in api.get("/bookings").json()["data"]}

    hidden = items[theirs.pk]
    assert hidden["details_hidden"] is True
    assert hidden["user"] == {"id": theirs.user_id, "name": None, "member_number": None, "email": None, "mobile": None}
    assert hidden["created_by"] == {"id": theirs.user_id, "name": None}
    # The member's own booking is never hidden from the member.
    assert items[mine.pk]["details_hidden"] is False
    assert items[mine.pk]["user"]["name"] == "Åsa Öberg"


def test_contacts_follow_each_persons_choice(api, club, member, aircraft, now):
    other = MemberFactory(organization=club, user__mobile_visible=False, user__mobile_number="999")
    UserEmail.objects.create(user=other.user, position=0, address="first@example.se")
    UserEmail.objects.create(user=other.user, position=1, address="second@example.se")
    booking = booking_of(club, aircraft, user=other.user, start=at(15), end=at(16))

    user = api.get(f"/bookings/{booking.pk}").json()["data"]["user"]

    assert (user["email"], user["mobile"]) == ("first@example.se", None)


def test_a_booker_of_a_sharing_club_shows_their_own_clubs_member_number(api, club, other_club, member, now):
    own = ObjectFactory(organization=club)
    ObjectShareFactory(object=own, organization=other_club)
    guest = MemberFactory(organization=other_club, member_number="B-17")
    booking = booking_of(club, own, user=guest.user, start=at(15), end=at(16))

    user = api.get(f"/bookings/{booking.pk}").json()["data"]["user"]

    assert user["member_number"] == "B-17"


# --- GET /bookings: visibility, order, parameters --------------------------------------------------------------


def test_the_list_has_own_and_shared_objects_bookings_and_never_another_clubs(api, club, other_club, aircraft, now):
    own = booking_of(club, aircraft, start=at(15), end=at(16))
    shared_object = ObjectFactory(organization=other_club)
    ObjectShareFactory(object=shared_object, organization=club)
    shared = booking_of(other_club, shared_object, start=at(16), end=at(17))
    theirs = booking_of(other_club, ObjectFactory(organization=other_club), start=at(14), end=at(15))
    inactive = booking_of(club, ObjectFactory(organization=club, active=False), start=at(14), end=at(15))

    assert ids(api.get("/bookings")) == [own.pk, shared.pk]
    for hidden in (theirs, inactive):
        assert_problem(api.get(f"/bookings/{hidden.pk}"), 404, 10100)
    assert_problem(api.get("/bookings/999999"), 404, 10100)


def test_the_order_is_start_then_id_with_queue_bookings_last(api, club, aircraft, katana, now):
    late = booking_of(club, aircraft, start=at(18), end=at(19))
    queued_early = booking_of(club, aircraft, start=at(13), end=at(14), is_primary=False)
    early_b = booking_of(club, katana, start=at(13), end=at(14))
    early_a = booking_of(club, aircraft, start=at(13), end=at(14))
    queued_late = booking_of(club, aircraft, start=at(18), end=at(19), is_primary=False)

    assert ids(api.get("/bookings")) == [early_b.pk, early_a.pk, late.pk, queued_early.pk, queued_late.pk]
    queued = api.get(f"/bookings/{queued_early.pk}").json()["data"]
    assert (queued["is_primary"], queued["is_queue"]) == (False, True)


def test_date_from_defaults_to_today_in_the_clubs_zone(api, club, aircraft, frozen_time):
    # 23:30 UTC on the 24th is 00:30 on the 25th in Stockholm.
    frozen_time.move_to(dt.datetime(2026, 11, 24, 23, 30, tzinfo=dt.UTC))
    ended_yesterday = booking_of(club, aircraft, start=at(21, day=24), end=at(23, day=24))  # 00:00 local
    today = booking_of(club, aircraft, start=at(22, day=24), end=at(23, 30, day=24))

    assert ids(api.get("/bookings")) == [today.pk]
    assert ids(api.get("/bookings?date_from=2026-11-24")) == [ended_yesterday.pk, today.pk]


def test_date_window_and_object_and_mine(api, club, member, aircraft, katana, now):
    student = booking_of(club, aircraft, student=member.user, start=at(9, day=26), end=at(10, day=26))
    booked = booking_of(club, katana, user=member.user, start=at(9, day=27), end=at(10, day=27))
    other = booking_of(club, aircraft, start=at(9, day=28), end=at(10, day=28))

    assert ids(api.get("/bookings?date_from=2026-11-26&date_to=2026-11-27")) == [student.pk, booked.pk]
    assert ids(api.get("/bookings?date_to=2026-11-26")) == [student.pk]
    assert ids(api.get(f"/bookings?object_id={aircraft.pk}")) == [student.pk, other.pk]
    assert ids(api.get("/bookings?mine=true")) == [student.pk, booked.pk]
    assert ids(api.get("/bookings?mine=false")) == [student.pk, booked.pk, other.pk]
    assert ids(api.get(f"/bookings?mine=true&object_id={katana.pk}")) == [booked.pk]


def test_list_parameters(api, club, aircraft, now):
    made = [booking_of(club, aircraft, start=at(13 + n), end=at(14 + n)) for n in range(3)]

    page = api.get("/bookings?limit=2&include_total=true").json()
    assert [item["id"] for item in page["data"]] == [made[0].pk, made[1].pk]
    assert page["meta"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "total": 3}
    assert page["links"]["next"].endswith("/mobile/v5/bookings?limit=2&include_total=true&offset=2")
    assert ids(api.get("/bookings?offset=2")) == [made[2].pk]
    item = api.get("/bookings?exclude=user,permissions").json()["data"][0]
    assert "user" not in item and "permissions" not in item and "student" in item
    assert "comment" not in api.get(f"/bookings/{made[0].pk}?exclude=comment").json()["data"]


@pytest.mark.parametrize(
    ("query", "status", "code", "field"),
    [
        ("object_id=x", 400, 10005, "object_id"),
        ("mine=1", 400, 10005, "mine"),
        ("date_from=2026-02-30", 400, 10110, "date_from"),
        ("date_to=tomorrow", 400, 10110, "date_to"),
        ("limit=501", 400, 10005, "limit"),
        ("include=status", 400, 10005, "include"),
        ("exclude=surprise", 400, 10005, "exclude"),
        ("ac_id=1", 400, 10007, "ac_id"),
        ("object_id=" + "9" * 40, 400, 10005, "object_id"),
        ("date_from=%00", 400, 10110, "date_from"),
    ],
)
def test_wrong_parameters_are_refused(api, now, query, status, code, field):
    body = assert_problem(api.get(f"/bookings?{query}"), status, code)
    assert field in problem_fields(body)


def test_the_item_takes_exclude_only(api, club, aircraft, now):
    booking = booking_of(club, aircraft, start=at(15), end=at(16))
    assert_problem(api.get(f"/bookings/{booking.pk}?date_from=2026-11-25"), 400, 10007)
    assert_problem(api.get(f"/bookings/{booking.pk}/"), 404, 10100)
    assert_problem(api.get("/bookings/"), 404, 10100)


def test_the_farthest_dates_answer(api, now):
    assert api.get("/bookings?date_from=0001-01-01&date_to=9999-12-31").status_code == 200


@pytest.mark.parametrize("rows", [1, 30])
def test_the_lists_query_count_is_the_same_for_one_and_many_rows(
    api, club, other_club, member, aircraft, now, rows, django_assert_num_queries
):
    shared_object = ObjectFactory(organization=other_club)
    ObjectShareFactory(object=shared_object, organization=club)
    for n in range(rows):
        people = [MemberFactory(organization=club) for _ in range(2)]
        booking_of(
            club,
            aircraft if n % 2 else shared_object,
            user=people[0].user,
            student=people[1].user,
            created_by=people[0].user,
            start=at(13) + dt.timedelta(minutes=n),
            end=at(20),
            is_primary=bool(n % 3),
        )
    api.get("/me")  # the token's rows cached alike for both counts

    # The token and the login, the page, its people (bookers, students and creators with their email addresses
    # and member numbers) in one query, the total.
    with django_assert_num_queries(5):
        response = api.get("/bookings?include_total=true")

    assert len(response.json()["data"]) == rows


# --- booking off, the app's token, rights, another club's member ----------------------------------------------


@pytest.mark.parametrize(("method", "route"), READS + WRITES)
def test_every_booking_endpoint_answers_10301_when_booking_is_off(api, club, member, aircraft, now, method, route):
    booking = booking_of(club, aircraft, user=member.user, start=at(15), end=at(16))
    club.booking_enabled = False
    club.save()

    body = assert_problem(api.call(method, address(route, booking.pk)), 403, 10301)

    assert body["detail"]
    assert Booking.objects.count() == 1


@pytest.mark.parametrize(("method", "route"), WRITES)
def test_a_locked_member_may_not_book_cut_or_cancel(api, club, member, aircraft, now, method, route):
    booking = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))
    member.locked = True
    member.save()
    json_body = (
        {"object_id": aircraft.pk, "start_at": iso(at(17)), "end_at": iso(at(18))} if route == "/bookings" else None
    )

    assert_problem(api.call(method, address(route, booking.pk), json=json_body), 403, 10302)

    assert list(Booking.objects.values_list("pk", "end_at")) == [(booking.pk, at(16))]


@pytest.mark.parametrize(("method", "route"), READS + WRITES)
def test_the_apps_own_token_and_missing_rights_are_refused(club, member, aircraft, now, method, route):
    booking = booking_of(club, aircraft, user=member.user, start=at(15), end=at(16))
    app = make_app_client(rights={"bookings": "r" if method == "POST" else "w"})
    path = address(route, booking.pk)

    assert_problem(MobileApi(issue_app_token(app)).call(method, path), 403, 10305)
    assert_problem(MobileApi(issue_member_tokens(member, app).access_token).call(method, path), 403, 10002)
    assert_problem(MobileApi().call(method, path), 401, 10001)


@pytest.mark.parametrize(("method", "route"), [("POST", ROUTES["booking-cut"]), ("POST", ROUTES["booking-cancel"])])
def test_another_clubs_booking_cannot_be_cut_or_cancelled(api, other_club, now, method, route):
    theirs = booking_of(other_club, ObjectFactory(organization=other_club), start=at(11), end=at(16))

    assert_problem(api.call(method, address(route, theirs.pk)), 404, 10100)

    assert Booking.objects.get().end_at == at(16)


@pytest.mark.parametrize(
    ("method", "route"),
    [
        ("GET", ROUTES["booking-cut"]),
        ("DELETE", ROUTES["booking"]),
        ("PUT", ROUTES["bookings"]),
        ("GET", ROUTES["booking-cancel"]),
    ],
)
def test_other_methods_are_405(api, club, aircraft, now, method, route):
    booking = booking_of(club, aircraft, start=at(15), end=at(16))
    response = api.call(method, address(route, booking.pk))
    assert_problem(response, 405, 10050)
    assert response["Allow"]


# --- POST /bookings ----------------------------------------------------------------------------------------------


def test_booking_makes_a_private_primary_booking(api, club, member, aircraft, now, hook):

    response = api.book(aircraft.pk, at(14, 0), at(16, 0), comment="Trip to Visby", seats_left=2)

    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    assert response["Location"] == f"https://testserver/mobile/v5/bookings/{booking.pk}"
    body = response.json()
    assert body["messages"] == [{"kind": "info", "text": "Your booking is made."}]
    assert body["data"] == api.get(f"/bookings/{booking.pk}").json()["data"]
    data = body["data"]
    assert (data["type"], data["is_primary"], data["is_own"], data["comment"], data["seats_left"]) == (
        "PRIV",
        True,
        True,
        "Trip to Visby",
        2,
    )
    assert (data["start_at"], data["end_at"], data["start_local"]) == (
        "2026-11-25T14:00:00Z",
        "2026-11-25T16:00:00Z",
        "2026-11-25T15:00:00+01:00",
    )
    assert data["created_by"] == {"id": member.user_id, "name": "Åsa Öberg"}
    assert data["created_at"] == "2026-11-25T12:00:00Z"
    assert (booking.user, booking.created_by, booking.student) == (member.user, member.user, None)
    assert list(Delivery.objects.filter(webhook=hook).values_list("event_type", "entity_id")) == [
        ("booking.create", booking.pk)
    ]


@pytest.mark.parametrize(
    ("start", "end", "stored_start", "stored_end"),
    [
        ("2026-11-25T15:00+01:00", "2026-11-25T16:30:45+01:00", at(14), at(15, 30)),
        ("2026-11-25T14:00:59Z", "2026-11-25T15:00:00.5Z", at(14), at(15)),
        ("2026-11-25T09:00-05:00", "2026-11-25T10:00-05:00", at(14), at(15)),
    ],
)
def test_times_with_offsets_and_optional_seconds(api, aircraft, now, start, end, stored_start, stored_end):
    response = api.post("/bookings", {"object_id": aircraft.pk, "start_at": start, "end_at": end})

    assert response.status_code == 201, response.content
    assert Booking.objects.values_list("start_at", "end_at").get() == (stored_start, stored_end)


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z"}, 10006, "object_id"),
        ({"object_id": "1", "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z"}, 10006, "object_id"),
        ({"object_id": 1, "start_at": 1764079200, "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "1764079200", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "2026-11-25T14:00", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "2026-11-25 14:00Z", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "2026-02-30T14:00Z", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "0001-01-01T00:00+01:00", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        ({"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "9999-12-31T23:59-14:00"}, 10006, "end_at"),
        ({"object_id": 1, "start_at": "2026-11-25T14:00Z\u0000", "end_at": "2026-11-25T15:00Z"}, 10006, "start_at"),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "comment": "a\u0000"},
            10006,
            "comment",
        ),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "comment": "x" * 1001},
            10006,
            "comment",
        ),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "seats_left": -1},
            10006,
            "seats_left",
        ),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "seats_left": 10**30},
            10006,
            "seats_left",
        ),
        ({"object_id": 10**30, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z"}, 10006, "object_id"),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "type": "SKOL"},
            10007,
            "type",
        ),
        (
            {"object_id": 1, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", "bStart": 1},
            10007,
            "bStart",
        ),
    ],
)
def test_wrong_bodies_are_400(api, aircraft, now, body, code, field):
    body = {**body, "object_id": aircraft.pk} if body.get("object_id") == 1 else body

    problem = assert_problem(api.post("/bookings", body), 400, code)

    assert field in problem_fields(problem)
    assert not Booking.objects.exists()


@pytest.mark.parametrize("raw", [b"[]", b"not json", b'{"object_id": 1,', b'"text"', b"\xff\xfe"])
def test_a_body_that_is_not_a_json_object_is_400_10004(api, now, raw):
    assert_problem(api.post("/bookings", raw=raw), 400, 10004)


def test_a_query_parameter_on_post_is_refused(api, aircraft, now):
    response = api.post(
        f"/bookings?object_id={aircraft.pk}", {"object_id": aircraft.pk, "start_at": iso(at(14)), "end_at": iso(at(15))}
    )
    assert_problem(response, 400, 10007)


@pytest.mark.parametrize(
    ("org_uses", "object_uses", "forced", "sent", "outcome"),
    [
        (True, True, False, 1.25, 201),
        (True, True, False, None, 201),
        (True, True, True, None, 400),
        (True, True, True, 0, 201),
        (True, False, False, 1.0, 400),
        (False, True, False, 1.0, 400),
        (False, False, True, None, 201),
        (True, True, False, 1000, 400),
        (True, True, False, -0.5, 400),
        (True, True, False, 1.005, 400),
    ],
)
def test_expected_airborne_only_where_the_club_and_object_use_it(
    api, club, aircraft, now, org_uses, object_uses, forced, sent, outcome
):
    club.booking_use_expected_airborne = org_uses
    club.save()
    aircraft.use_expected_airborne, aircraft.force_expected_time = object_uses, forced
    aircraft.save()
    fields = {} if sent is None else {"expected_airborne": sent}

    response = api.book(aircraft.pk, at(14), at(15), **fields)

    assert response.status_code == outcome, response.content
    if outcome == 201:
        assert response.json()["data"]["expected_airborne"] == sent
    else:
        assert problem_fields(response) == {"expected_airborne": 10006}
        assert not Booking.objects.exists()


# --- cut -------------------------------------------------------------------------------------------------------


def test_cut_ends_the_booking_now_and_tells_webhooks(api, club, member, aircraft, frozen_time, hook):
    frozen_time.move_to(dt.datetime(2026, 11, 25, 12, 10, 42, tzinfo=dt.UTC))
    booking = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))

    response = api.post(f"/bookings/{booking.pk}/cut")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["messages"] == [{"kind": "info", "text": "Your booking now ends at 13:10."}]
    assert body["data"]["end_at"] == "2026-11-25T12:10:00Z"
    assert body["data"]["is_passed"] is True and body["data"]["permissions"]["can_cut"] is False
    booking.refresh_from_db()
    assert booking.end_at == at(12, 10)
    assert list(Delivery.objects.filter(webhook=hook).values_list("event_type", "entity_id")) == [
        ("booking.update", booking.pk)
    ]


@pytest.mark.parametrize("raw", [b"{}", b""])
def test_cut_takes_no_body(api, club, member, aircraft, now, raw):
    booking = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))
    assert api.post(f"/bookings/{booking.pk}/cut", raw=raw).status_code == 200


def test_cut_refuses_fields_and_parameters(api, club, member, aircraft, now):
    booking = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))
    assert_problem(api.post(f"/bookings/{booking.pk}/cut", {"end_at": "2026-11-25T13:00Z"}), 400, 10007)
    assert_problem(api.post(f"/bookings/{booking.pk}/cut", raw=b"[1]"), 400, 10004)
    assert_problem(api.post(f"/bookings/{booking.pk}/cut?exclude=user"), 400, 10007)
    assert Booking.objects.get().end_at == at(16)


# --- cancel ------------------------------------------------------------------------------------------------------


def test_cancel_deletes_the_booking_and_replies_with_it_as_it_was(
    api, club, member, aircraft, now, mailoutbox, django_capture_on_commit_callbacks, hook
):
    student = MemberFactory(organization=club)
    UserEmail.objects.create(user=student.user, position=0, address="student@example.se")
    booking = booking_of(club, aircraft, user=member.user, student=student.user, start=at(14), end=at(16))
    before = api.get(f"/bookings/{booking.pk}").json()["data"]

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/bookings/{booking.pk}/cancel", {"reason": "Weather"})

    assert response.status_code == 200, response.content
    assert response.json() == {"data": before, "messages": [{"kind": "info", "text": "Your booking is cancelled."}]}
    assert not Booking.objects.exists()
    assert list(Delivery.objects.filter(webhook=hook).values_list("event_type", "entity_id")) == [
        ("booking.delete", booking.pk)
    ]
    (sent,) = mailoutbox
    assert sorted(sent.to) == ["asa@example.se", "student@example.se"]
    assert "SE-KBT" in sent.subject and "Weather" in sent.body and "2026-11-25 15:00" in sent.body
    assert_problem(api.get(f"/bookings/{booking.pk}"), 404, 10100)


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"reason": null}', b'{"reason": ""}'])
def test_cancel_body_is_optional(api, club, member, aircraft, now, raw):
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))
    assert api.post(f"/bookings/{booking.pk}/cancel", raw=raw).status_code == 200


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b'{"reason": 5}', 400, 10006),
        (b'{"reason": "a\\u0000"}', 400, 10006),
        (b'{"reason": "' + b"x" * 501 + b'"}', 400, 10006),
        (b'{"why": "x"}', 400, 10007),
        (b"[]", 400, 10004),
    ],
)
def test_cancel_refuses_wrong_bodies(api, club, member, aircraft, now, raw, status, code):
    booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))
    booking = Booking.objects.get()
    assert_problem(api.post(f"/bookings/{booking.pk}/cancel", raw=raw), status, code)
    assert Booking.objects.exists()


def test_cancelling_a_primary_moves_the_queue_up_with_webhook_events(api, club, member, aircraft, now, hook):
    mine = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))
    first = booking_of(
        club,
        aircraft,
        start=at(14),
        end=at(15),
        is_primary=False,
        created_at=dt.datetime(2026, 11, 1, 8, 0, tzinfo=dt.UTC),
    )
    second = booking_of(
        club,
        aircraft,
        start=at(14, 30),
        end=at(15, 30),
        is_primary=False,
        created_at=dt.datetime(2026, 11, 2, 8, 0, tzinfo=dt.UTC),
    )
    later = booking_of(
        club,
        aircraft,
        start=at(15, 0),
        end=at(16),
        is_primary=False,
        created_at=dt.datetime(2026, 11, 3, 8, 0, tzinfo=dt.UTC),
    )

    assert api.post(f"/bookings/{mine.pk}/cancel").status_code == 200

    primary = dict(Booking.objects.values_list("pk", "is_primary"))
    # The earliest made becomes primary; the second overlaps it and waits; the one after it fits.
    assert primary == {first.pk: True, second.pk: False, later.pk: True}
    assert list(Delivery.objects.filter(webhook=hook).order_by("id").values_list("event_type", "entity_id")) == [
        ("booking.delete", mine.pk),
        ("booking.update", first.pk),
        ("booking.update", later.pk),
    ]


def test_cutting_a_primary_moves_the_queue_up(api, club, member, aircraft, now):
    mine = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))
    waiting = booking_of(club, aircraft, start=at(13), end=at(14), is_primary=False)

    assert api.post(f"/bookings/{mine.pk}/cut").status_code == 200

    assert Booking.objects.get(pk=waiting.pk).is_primary is True


# --- the replies as the OpenAPI document describes them ------------------------------------------------------------


def test_error_and_success_replies_conform_to_the_mobile_document(api, club, member, aircraft, katana, now):
    from django.test import Client

    from tests.test_openapi import Conformance

    document = Client().get("/mobile/v5/openapi.json", secure=True).json()
    conformance = Conformance(document)
    booking_of(club, katana, start=at(14), end=at(16))
    mine = booking_of(club, aircraft, user=member.user, start=at(11), end=at(16))

    refusal = api.book(katana.pk, at(15), at(17))
    conformance.check("POST", "/bookings", refusal, 409)
    assert "field" not in refusal.json()["errors"][0]
    conformance.check("POST", "/bookings", api.book(aircraft.pk, at(13), at(14), comment=5), 400)
    conformance.check("POST", "/bookings", api.book(aircraft.pk, at(13), at(14)), 201)
    conformance.check("POST", "/bookings/{id}/cut", api.post(f"/bookings/{mine.pk}/cut", {"x": 1}), 400)
    conformance.check("POST", "/bookings/{id}/cancel", api.post("/bookings/999999/cancel"), 404)
    conformance.check("POST", "/bookings/{id}/cut", api.post(f"/bookings/{mine.pk}/cut"), 200)
    conformance.check("GET", "/bookings", api.get("/bookings?mine=maybe"), 400)
    member.locked = True
    member.save()
    conformance.check("POST", "/bookings/{id}/cancel", api.post(f"/bookings/{mine.pk}/cancel"), 403)
    club.booking_enabled = False
    club.save()
    conformance.check("GET", "/bookings", api.get("/bookings"), 403)
    conformance.check("GET", "/bookings/{id}", api.get(f"/bookings/{mine.pk}"), 403)
    operation = document["paths"]["/bookings"]["post"]
    assert "Location" in operation["responses"]["201"]["headers"]
    assert operation["responses"]["403"]["content"]["application/problem+json"]["schema"]["properties"]["code"][
        "enum"
    ] == [10000, 10002, 10003, 10301, 10302, 10305]


@pytest.mark.parametrize(
    "raw",
    [
        b'"expected_airborne": 1e999999999',
        b'"expected_airborne": 1e-999999999',
        b'"expected_airborne": "1.5"',
        b'"expected_airborne": true',
        b'"seats_left": 1.5',
        b'"comment": "\\ud800"',
    ],
)
def test_hostile_values_are_400_never_500(api, club, aircraft, now, raw):
    club.booking_use_expected_airborne = True
    club.save()
    aircraft.use_expected_airborne = True
    aircraft.save()
    body = b'{"object_id": %d, "start_at": "2026-11-25T14:00Z", "end_at": "2026-11-25T15:00Z", %s}' % (aircraft.pk, raw)

    response = api.post("/bookings", raw=body)

    assert_problem(response, 400, 10006)
    assert not Booking.objects.exists()


@pytest.mark.parametrize("end", ["9999-12-31T23:59Z", "3000-01-01T00:00Z"])
def test_a_point_in_time_beyond_the_year_2999_is_400_not_500(api, aircraft, now, end):
    body = {"object_id": aircraft.pk, "start_at": "2026-11-26T10:00Z", "end_at": end}
    problem = api.post("/bookings", json=body)
    assert problem.status_code == 400 and problem.json()["errors"][0]["field"] == "end_at"
