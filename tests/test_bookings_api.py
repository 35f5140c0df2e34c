"""GET /bookings and GET /bookings/{id} (document 1, "Booking" and "Endpoints > Bookings")."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User, UserEmail
from bookings.models import Booking
from objects_app.models import Category
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import BookingFactory, EquipmentFactory, ObjectFactory, ObjectShareFactory
from tests.helpers import assert_problem, problem_fields

UTC = dt.UTC


def at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def member(organization, first_name: str, last_name: str = "Berg", **user_fields) -> User:
    return MemberFactory(
        organization=organization,
        user__first_name=first_name,
        user__last_name=last_name,
        **{f"user__{name}": value for name, value in user_fields.items()},
    ).user


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["data"]]


@pytest.fixture
def plane(org):
    return ObjectFactory(organization=org, registration="SE-KBA", type_designator="C172")


def book(plane, start, end, **fields) -> Booking:
    return BookingFactory(object=plane, organization=plane.organization, start_at=start, end_at=end, **fields)


# --- the item's shape ------------------------------------------------------------------------------------


def test_a_booking_has_the_contracts_fields(api, org, plane):
    anna = member(org, "Anna", "Berg", mobile_country_code="46", mobile_initial_number="70", mobile_number="1234567")
    UserEmail.objects.create(user=anna, position=1, address="second@example.org")
    UserEmail.objects.create(user=anna, position=0, address="anna@example.org")
    erik = member(org, "Erik", "Lund")
    booking = book(
        plane,
        at(2026, 11, 20, 9, 0),
        at(2026, 11, 20, 11, 30),
        user=anna,
        student=erik,
        type="SKOL",
        is_primary=False,
        expected_airborne=Decimal("1.50"),
        comment="Circuits",
    )

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert data == {
        "id": booking.pk,
        "start_at": "2026-11-20T09:00:00Z",
        "end_at": "2026-11-20T11:30:00Z",
        "start_local": "2026-11-20T10:00:00+01:00",
        "end_local": "2026-11-20T12:30:00+01:00",
        "timezone": "Europe/Stockholm",
        "object": {
            "id": plane.pk,
            "registration": "SE-KBA",
            "type_designator": "C172",
            "category": {"id": 0, "name": "Aircraft"},
            "organization": {"id": org.pk, "name": org.name},
        },
        "user": {"id": anna.pk, "name": "Anna Berg", "email": "anna@example.org", "mobile": "+46 701234567"},
        "student": {"id": erik.pk, "name": "Erik Lund", "email": None, "mobile": None},
        "type": "SKOL",
        "is_primary": False,
        "expected_airborne": 1.5,
        "comment": "Circuits",
    }
    assert api.get("/bookings").json()["data"] == [data]


def test_empty_values_are_null(api, org):
    headset = EquipmentFactory(organization=org, registration="Headset 1")
    booking = book(headset, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), comment="")

    data = api.get(f"/bookings/{booking.pk}").json()["data"]

    assert data["student"] is None
    assert data["comment"] is None
    assert data["expected_airborne"] is None
    assert data["object"]["type_designator"] is None
    assert data["object"]["category"] == {"id": 1, "name": "Equipment"}


def test_hidden_email_and_mobile_are_null(api, org, plane):
    phone = {"mobile_country_code": "47", "mobile_initial_number": "9", "mobile_number": "1234567"}
    hides_email = member(org, "Hilda", email_visible=False, **phone)
    hides_mobile = member(org, "Moa", mobile_visible=False, **phone)
    for user in (hides_email, hides_mobile):
        UserEmail.objects.create(user=user, position=0, address=f"{user.first_name.lower()}@example.org")
    first = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=hides_email, student=hides_mobile)
    second = book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0), user=hides_mobile, student=hides_email)

    items = {item["id"]: item for item in api.get("/bookings").json()["data"]}

    assert items[first.pk]["user"] == {
        "id": hides_email.pk,
        "name": "Hilda Berg",
        "email": None,
        "mobile": "+47 91234567",
    }
    assert items[first.pk]["student"] == {
        "id": hides_mobile.pk,
        "name": "Moa Berg",
        "email": "moa@example.org",
        "mobile": None,
    }
    assert items[second.pk]["user"]["email"] == "moa@example.org"
    assert items[second.pk]["user"]["mobile"] is None
    assert items[second.pk]["student"]["email"] is None
    assert items[second.pk]["student"]["mobile"] == "+47 91234567"


def test_a_mobile_without_country_code_is_prefix_and_number(api, org, plane):
    user = member(org, "Nils", mobile_initial_number="070", mobile_number="1234567")
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=user)
    assert api.get(f"/bookings/{booking.pk}").json()["data"]["user"]["mobile"] == "0701234567"


def test_times_are_utc_with_z_and_local_with_the_seasons_offset(api, plane):
    winter = book(plane, at(2026, 1, 15, 8, 0), at(2026, 1, 15, 9, 45))
    summer = book(plane, at(2026, 7, 15, 8, 0), at(2026, 7, 15, 9, 45))

    items = {item["id"]: item for item in api.get("/bookings").json()["data"]}

    assert items[winter.pk]["start_at"] == "2026-01-15T08:00:00Z"
    assert items[winter.pk]["start_local"] == "2026-01-15T09:00:00+01:00"
    assert items[winter.pk]["end_local"] == "2026-01-15T10:45:00+01:00"
    assert items[summer.pk]["start_at"] == "2026-07-15T08:00:00Z"
    assert items[summer.pk]["start_local"] == "2026-07-15T10:00:00+02:00"
    assert items[summer.pk]["end_local"] == "2026-07-15T11:45:00+02:00"


def test_times_are_whole_seconds(api, plane):
    booking = book(plane, at(2026, 11, 20, 9, 0, 30, 500_000), at(2026, 11, 20, 10, 0, 0, 250_000))
    data = api.get(f"/bookings/{booking.pk}").json()["data"]
    assert data["start_at"] == "2026-11-20T09:00:30Z"
    assert data["start_local"] == "2026-11-20T10:00:30+01:00"
    assert data["end_at"] == "2026-11-20T10:00:00Z"


def test_every_field_can_be_left_out_and_no_block_is_offered(api, plane):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))

    data = api.get(f"/bookings/{booking.pk}", {"exclude": "user,student,start_local"}).json()["data"]
    assert "user" not in data and "student" not in data and "start_local" not in data
    assert data["end_local"] == "2026-11-20T11:00:00+01:00"

    body = assert_problem(api.get(f"/bookings/{booking.pk}", {"include": "object"}), 400, 10005)
    assert problem_fields(body) == {"include": 10005}
    body = assert_problem(api.get("/bookings", {"exclude": "colour"}), 400, 10005)
    assert problem_fields(body) == {"exclude": 10005}


# --- tenancy and shared objects --------------------------------------------------------------------------


@pytest.fixture
def helsinki_club(db):
    return OrganizationFactory(name="Helsingin Ilmailukerho", timezone="Europe/Helsinki")


def test_bookings_of_an_object_shared_with_the_organization_are_listed_in_the_owners_zone(api, org, helsinki_club):
    theirs = ObjectFactory(organization=helsinki_club, registration="OH-ABC")
    ObjectShareFactory(object=theirs, organization=org)
    shared = BookingFactory(organization=helsinki_club, object=theirs, start_at=at(2026, 11, 20, 9, 0))
    unshared = BookingFactory(organization=helsinki_club, start_at=at(2026, 11, 20, 9, 0))

    assert ids(api.get("/bookings")) == [shared.pk]
    data = api.get(f"/bookings/{shared.pk}").json()["data"]
    assert data["timezone"] == "Europe/Helsinki"
    assert data["start_local"] == "2026-11-20T11:00:00+02:00"
    assert data["object"]["organization"] == {"id": helsinki_club.pk, "name": "Helsingin Ilmailukerho"}
    assert data["user"]["id"] == shared.user_id
    assert_problem(api.get(f"/bookings/{unshared.pk}"), 404, 10100)


def test_a_sharing_that_ends_hides_the_bookings(api, org, other_org):
    theirs = ObjectFactory(organization=other_org)
    share = ObjectShareFactory(object=theirs, organization=org)
    booking = BookingFactory(organization=other_org, object=theirs)
    assert ids(api.get("/bookings")) == [booking.pk]

    share.delete()

    assert ids(api.get("/bookings")) == []
    assert_problem(api.get(f"/bookings/{booking.pk}"), 404, 10100)


def test_the_owner_does_not_see_bookings_of_an_object_shared_with_it_by_nobody(api, other_api, org, other_org, plane):
    mine = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    theirs = BookingFactory(organization=other_org)

    assert ids(api.get("/bookings")) == [mine.pk]
    assert ids(other_api.get("/bookings")) == [theirs.pk]
    assert_problem(other_api.get(f"/bookings/{mine.pk}"), 404, 10100)
    # A filter cannot reach them either.
    assert ids(api.get("/bookings", {"object_id": theirs.object_id})) == []
    assert ids(api.get("/bookings", {"object_organization_id": other_org.pk})) == []
    assert ids(api.get("/bookings", {"user_id": theirs.user_id})) == []


# --- filters ---------------------------------------------------------------------------------------------


def test_int_filters(api, org, other_org, plane):
    ObjectShareFactory(object=(theirs := ObjectFactory(organization=other_org)), organization=org)
    headset = EquipmentFactory(organization=org)
    anna, erik = member(org, "Anna"), member(org, "Erik")
    first = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna, student=erik)
    second = book(headset, at(2026, 11, 20, 10, 0), at(2026, 11, 20, 11, 0), user=erik)
    third = BookingFactory(
        organization=other_org, object=theirs, start_at=at(2026, 11, 20, 11, 0), end_at=at(2026, 11, 20, 12, 0)
    )

    assert ids(api.get("/bookings", {"object_id": plane.pk})) == [first.pk]
    assert ids(api.get("/bookings", {"object_id": theirs.pk})) == [third.pk]
    assert ids(api.get("/bookings", {"object_organization_id": org.pk})) == [first.pk, second.pk]
    assert ids(api.get("/bookings", {"object_organization_id": other_org.pk})) == [third.pk]
    assert ids(api.get("/bookings", {"object_category_id": Category.EQUIPMENT})) == [second.pk]
    assert ids(api.get("/bookings", {"object_category_id": Category.AIRCRAFT})) == [first.pk, third.pk]
    assert ids(api.get("/bookings", {"user_id": erik.pk})) == [second.pk]
    assert ids(api.get("/bookings", {"student_id": erik.pk})) == [first.pk]
    assert ids(api.get("/bookings", {"student_id": anna.pk})) == []
    assert ids(api.get("/bookings", {"user_id": 10**18 - 1})) == []


def test_is_primary(api, plane):
    primary = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    queued = book(plane, at(2026, 11, 20, 9, 30), at(2026, 11, 20, 10, 30), is_primary=False)

    assert ids(api.get("/bookings", {"is_primary": "true"})) == [primary.pk]
    assert ids(api.get("/bookings", {"is_primary": "false"})) == [queued.pk]
    assert ids(api.get("/bookings")) == [primary.pk, queued.pk]
    body = assert_problem(api.get("/bookings", {"is_primary": "1"}), 400, 10005)
    assert problem_fields(body) == {"is_primary": 10005}


def test_object_registration_search(api, org):
    regs = ["SE-KBA", "SE_KBA", "SEXKBA", "50% Hangar", "500 Hangar", "se-kbb"]
    bookings = {}
    for hour, registration in enumerate(regs):
        obj = ObjectFactory(organization=org, registration=registration)
        bookings[registration] = book(obj, at(2026, 11, 20, hour, 0), at(2026, 11, 20, hour, 30)).pk

    def found(value):
        return sorted(
            regs[[bookings[r] for r in regs].index(pk)]
            for pk in ids(api.get("/bookings", {"object_registration": value}))
        )

    assert found("se-kba") == ["SE-KBA"]
    assert found("SE-KB*") == ["SE-KBA", "se-kbb"]
    assert found("SE_KBA") == ["SE_KBA"]  # `_` is a plain character
    assert found("50%*") == ["50% Hangar"]  # so is `%`
    assert found("*Hangar") == ["50% Hangar", "500 Hangar"]
    assert found("*K*A") == ["SE-KBA", "SEXKBA", "SE_KBA"]
    assert found("S***E-KBA") == ["SE-KBA"]
    assert found("KBA") == []  # the whole value must match


def test_user_and_student_name_search(api, org, plane):
    anna = member(org, "Anna", "Åberg")
    annika = member(org, "Annika", "Lund")
    under = member(org, "Li_sa", "Ek")
    first = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna, student=annika)
    second = book(plane, at(2026, 11, 20, 10, 0), at(2026, 11, 20, 11, 0), user=annika, student=under)
    third = book(plane, at(2026, 11, 20, 11, 0), at(2026, 11, 20, 12, 0), user=under)

    assert ids(api.get("/bookings", {"user_name": "anna åberg"})) == [first.pk]
    assert ids(api.get("/bookings", {"user_name": "Ann*"})) == [first.pk, second.pk]
    assert ids(api.get("/bookings", {"user_name": "Anna"})) == []
    assert ids(api.get("/bookings", {"user_name": "Li_sa*"})) == [third.pk]
    assert ids(api.get("/bookings", {"user_name": "Li%"})) == []
    assert ids(api.get("/bookings", {"student_name": "*Lund"})) == [first.pk]
    assert ids(api.get("/bookings", {"student_name": "Li_sa Ek"})) == [second.pk]
    assert ids(api.get("/bookings", {"student_name": "*"})) == [first.pk, second.pk]


def test_filters_combine(api, org, plane):
    anna = member(org, "Anna")
    wanted = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna)
    book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0), user=anna)
    book(plane, at(2026, 11, 20, 11, 0), at(2026, 11, 20, 12, 0))

    params = {"user_id": anna.pk, "date_from": "2026-11-20", "date_to": "2026-11-20", "object_registration": "SE-*"}
    assert ids(api.get("/bookings", params)) == [wanted.pk]


@pytest.mark.parametrize(
    ("name", "value", "code"),
    [
        ("object_id", "x", 10005),
        ("user_id", "1.5", 10005),
        ("student_id", "1" * 19, 10005),
        ("date_from", "2026-13-01", 10110),
        ("date_to", "20261101", 10110),
        ("object_registration", "x" * 101, 10005),
        ("user_name", "a\x00b", 10005),
        ("limit", "501", 10005),
    ],
)
def test_a_wrong_parameter_is_named(api, name, value, code):
    body = assert_problem(api.get("/bookings", {name: value}), 400, code)
    assert problem_fields(body) == {name: code}


# --- order and paging ------------------------------------------------------------------------------------


def test_sorted_by_start_then_id(api, plane):
    late = book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0))
    early_b = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 12, 0))
    early_a = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    earliest = book(plane, at(2026, 11, 19, 23, 0), at(2026, 11, 21, 23, 0))

    assert ids(api.get("/bookings")) == [earliest.pk, early_b.pk, early_a.pk, late.pk]

    page = api.get("/bookings", {"limit": 2, "offset": 1, "include_total": "true"}).json()
    assert [item["id"] for item in page["data"]] == [early_b.pk, early_a.pk]
    assert page["meta"] == {"count": 2, "limit": 2, "offset": 1, "has_more": True, "total": 4}
    assert "offset=3" in page["links"]["next"]


# --- the local-date window -------------------------------------------------------------------------------


def window(api, date_from=None, date_to=None) -> list[int]:
    params = {name: value for name, value in (("date_from", date_from), ("date_to", date_to)) if value}
    return ids(api.get("/bookings", params))


def test_a_booking_over_local_midnight_is_found_by_both_dates(api, plane):
    # 23:30-00:30 in Stockholm (+01:00) is 22:30-23:30 UTC: one UTC day, two local ones.
    night = book(plane, at(2026, 11, 20, 22, 30), at(2026, 11, 20, 23, 30))

    assert window(api, "2026-11-20", "2026-11-20") == [night.pk]
    assert window(api, "2026-11-21", "2026-11-21") == [night.pk]
    assert window(api, "2026-11-21") == [night.pk]
    assert window(api, None, "2026-11-20") == [night.pk]
    assert window(api, "2026-11-22") == []
    assert window(api, None, "2026-11-19") == []


def test_the_window_takes_every_booking_that_overlaps_it(api, plane):
    before = book(plane, at(2026, 11, 18, 9, 0), at(2026, 11, 18, 10, 0))
    into = book(plane, at(2026, 11, 19, 9, 0), at(2026, 11, 20, 9, 0))
    inside = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    over = book(plane, at(2026, 11, 19, 9, 0), at(2026, 11, 23, 9, 0))
    out_of = book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 23, 9, 0))
    after = book(plane, at(2026, 11, 23, 9, 0), at(2026, 11, 23, 10, 0))

    # Sorted by start, then id: `into` was made before `over`.
    assert window(api, "2026-11-20", "2026-11-21") == [into.pk, over.pk, inside.pk, out_of.pk]
    assert window(api, "2026-11-20") == [into.pk, over.pk, inside.pk, out_of.pk, after.pk]
    assert window(api, None, "2026-11-19") == [before.pk, into.pk, over.pk]
    # The two filters are two conditions (document 1): date_from after date_to finds only what spans both.
    assert window(api, "2026-11-21", "2026-11-20") == [over.pk]
    assert window(api, "2026-11-24", "2026-11-19") == []


def test_a_booking_ending_at_local_midnight_belongs_to_the_day_before(api, plane):
    # 22:00-00:00 local on 20 November: it takes no time of the 21st.
    evening = book(plane, at(2026, 11, 20, 21, 0), at(2026, 11, 20, 23, 0))
    # 00:00-01:00 local on 22 November: it takes no time of the 21st.
    morning = book(plane, at(2026, 11, 21, 23, 0), at(2026, 11, 22, 0, 0))

    assert window(api, "2026-11-20", "2026-11-20") == [evening.pk]
    assert window(api, "2026-11-21", "2026-11-21") == []
    assert window(api, "2026-11-22", "2026-11-22") == [morning.pk]


def test_the_dst_days_in_stockholm(api, plane):
    # 29 March 2026 has 23 hours: 00:00 local is 23:00 UTC the day before, 24:00 local is 22:00 UTC.
    spring_first = book(plane, at(2026, 3, 28, 23, 0), at(2026, 3, 28, 23, 30))  # 00:00-00:30 +01:00
    spring_last = book(plane, at(2026, 3, 29, 21, 30), at(2026, 3, 29, 21, 59))  # 23:30-23:59 +02:00
    spring_next = book(plane, at(2026, 3, 29, 22, 0), at(2026, 3, 29, 22, 30))  # 00:00 on the 30th
    # 25 October 2026 has 25 hours: 00:00 local is 22:00 UTC the day before, 24:00 local is 23:00 UTC.
    autumn_before = book(plane, at(2026, 10, 24, 21, 0), at(2026, 10, 24, 22, 0))  # 23:00-24:00 +02:00
    autumn_first = book(plane, at(2026, 10, 24, 22, 0), at(2026, 10, 24, 22, 30))  # 00:00-00:30 +02:00
    autumn_last = book(plane, at(2026, 10, 25, 22, 30), at(2026, 10, 25, 22, 59))  # 23:30-23:59 +01:00
    autumn_next = book(plane, at(2026, 10, 25, 23, 0), at(2026, 10, 25, 23, 30))  # 00:00 on the 26th

    assert window(api, "2026-03-29", "2026-03-29") == [spring_first.pk, spring_last.pk]
    assert window(api, "2026-03-30", "2026-03-30") == [spring_next.pk]
    assert window(api, "2026-10-25", "2026-10-25") == [autumn_first.pk, autumn_last.pk]
    assert window(api, "2026-10-24", "2026-10-24") == [autumn_before.pk]
    assert window(api, "2026-10-26", "2026-10-26") == [autumn_next.pk]
    items = {item["id"]: item for item in api.get("/bookings", {"date_from": "2026-03-29"}).json()["data"]}
    assert items[spring_first.pk]["start_local"] == "2026-03-29T00:00:00+01:00"
    assert items[spring_last.pk]["start_local"] == "2026-03-29T23:30:00+02:00"


def test_the_dates_are_the_callers_organizations_even_for_a_shared_object(api, org, helsinki_club):
    # 23:30 in Helsinki (+02:00) on 20 November is 22:30 in Stockholm: the 20th for the caller, both ways.
    theirs = ObjectFactory(organization=helsinki_club)
    ObjectShareFactory(object=theirs, organization=org)
    late = BookingFactory(
        organization=helsinki_club, object=theirs, start_at=at(2026, 11, 20, 21, 30), end_at=at(2026, 11, 20, 22, 0)
    )

    assert window(api, "2026-11-20", "2026-11-20") == [late.pk]
    assert window(api, "2026-11-21") == []
    assert api.get(f"/bookings/{late.pk}").json()["data"]["start_local"] == "2026-11-20T23:30:00+02:00"


def test_the_farthest_dates_answer(api, plane):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    for date_from, date_to in [
        ("0001-01-01", "9999-12-31"),
        ("9999-12-31", "9999-12-31"),
        ("0001-01-01", "0001-01-01"),
    ]:
        found = window(api, date_from, date_to)
        assert found == ([booking.pk] if date_from < "2026" < date_to else [])


def test_the_farthest_dates_in_zones_far_from_utc(make_api):
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago"):
        organization = OrganizationFactory(timezone=zone)
        api = make_api(organization)
        plane = ObjectFactory(organization=organization)
        booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
        assert window(api, "0001-01-01", "9999-12-31") == [booking.pk]
        assert window(api, "9999-12-31") == []
        assert window(api, None, "0001-01-01") == []
        assert window(api, "0001-01-01") == [booking.pk]


# --- queries ---------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_at_limit_1_and_500(api, org, other_org, plane, django_assert_max_num_queries):
    theirs = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=theirs, organization=org)
    users = User.objects.bulk_create(
        User(username=f"bulk{n}", first_name=f"Bulk{n}", last_name="Test", name=f"Bulk{n} Test") for n in range(40)
    )
    UserEmail.objects.bulk_create(
        UserEmail(user=user, position=0, address=f"{user.username}@example.org") for user in users
    )
    start = at(2026, 1, 1, 8, 0)
    Booking.objects.bulk_create(
        Booking(
            object=plane if n % 2 else theirs,
            user=users[n % 40],
            student=users[(n + 1) % 40] if n % 3 else None,
            start_at=start + dt.timedelta(hours=n),
            end_at=start + dt.timedelta(hours=n, minutes=50),
            created_at=start,
        )
        for n in range(520)
    )
    api.get("/token")  # the access token is fetched outside the counted calls
    api.get("/bookings", {"limit": 1})
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/bookings", {"limit": 1}).json()["data"]) == 1
    # The page (its keys chosen within its one statement) and the bookers and students with their email
    # addresses in one query (each person once, however many of the page's bookings are theirs).
    assert len(at_limit_1) == 2

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/bookings", {"limit": 500, "date_from": "2026-01-01", "user_name": "Bulk*"}).json()
    assert body["meta"]["count"] == 500
    assert body["meta"]["has_more"] is True
    assert body["data"][1]["student"]["email"].endswith("@example.org")
    booking = Booking.objects.filter(student__isnull=False).first()
    with django_assert_max_num_queries(len(at_limit_1)):
        assert api.get(f"/bookings/{booking.pk}").status_code == 200


# --- the OpenAPI document --------------------------------------------------------------------------------


def test_replies_conform_to_the_document(api, make_api, org, other_org, plane):
    from tests.test_openapi import DOCUMENT_URL, Conformance

    conformance = Conformance(Client().get(DOCUMENT_URL, secure=True).json())
    anna = member(org, "Anna", email_visible=False, mobile_country_code="46", mobile_number="701234567")
    UserEmail.objects.create(user=anna, position=0, address="anna@example.org")
    with_student = book(
        plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna, student=member(org, "Erik"), comment="x"
    )
    book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0), expected_airborne=Decimal("1.25"))
    foreign = BookingFactory(organization=other_org)

    conformance.check("GET", "/bookings", api.get("/bookings", {"include_total": "true", "limit": 1}), 200)
    conformance.check("GET", "/bookings", api.get("/bookings", {"exclude": "user,student"}), 200)
    conformance.check("GET", "/bookings/{id}", api.get(f"/bookings/{with_student.pk}"), 200)
    conformance.check("GET", "/bookings", api.get("/bookings", {"date_from": "2026-02-30"}), 400)
    conformance.check("GET", "/bookings", api.get("/bookings", {"colour": "red"}), 400)
    conformance.check("GET", "/bookings/{id}", api.get(f"/bookings/{foreign.pk}"), 404)
    conformance.check("GET", "/bookings/{id}", make_api(org, rights={}).get(f"/bookings/{foreign.pk}"), 403)
    conformance.check("GET", "/bookings", api.get("/bookings", bearer="wrong"), 401)


@pytest.mark.parametrize("name", ["object_id", "object_organization_id", "object_category_id", "user_id", "student_id"])
@pytest.mark.parametrize("value", [str(10**18 - 1), str(-(10**18) + 1), "0", "70000"])
def test_int_filters_take_any_number_in_range(api, plane, name, value):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    aircraft = name == "object_category_id" and value == "0"
    assert ids(api.get("/bookings", {name: value})) == ([booking.pk] if aircraft else [])
