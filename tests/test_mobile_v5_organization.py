"""GET /mobile/v5/organization, /organization/settings and /sun-times (document 2, module organization): every
field, parameter, default, order and code, another organization never shown, query counts, the replies held to
the Mobile OpenAPI document; and the organization website's booking and app settings."""

import datetime as dt
import itertools
from decimal import Decimal

import pytest
import time_machine
from django.test import Client

from accounts.models import AppSetting
from tests.admin_fixtures import ADMIN, form_data, web
from tests.factories import MemberFactory, OrganizationFactory, make_admin
from tests.helpers import assert_problem, problem_fields
from tests.mobile_helpers import ALL_MOBILE_RIGHTS, MobileApi, issue_app_token, issue_member_tokens, make_app_client
from tests.test_openapi import Conformance

pytestmark = pytest.mark.django_db

WINTER = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)  # Stockholm +01:00, Wednesday 2026-11-25
SUMMER = dt.datetime(2026, 6, 21, 10, 0, tzinfo=dt.UTC)  # Stockholm +02:00


@pytest.fixture
def club(db):
    return OrganizationFactory(
        name="Västerås Flygklubb",
        homepage="https://vfk.example.se",
        reference_icao="ESOW",
        latitude=Decimal("59.589444"),
        longitude=Decimal("16.633611"),
        country="SE",
        timezone="Europe/Stockholm",
        date_format="Y-m-d",
        locale="sv",
        currency_code="SEK",
        currency_symbol="kr",
        booking_enabled=True,
        booking_cancel_reason_required=True,
        booking_standard_length_hours=Decimal("1.50"),
        booking_use_expected_airborne=True,
    )


@pytest.fixture
def other_club(db):
    return OrganizationFactory(
        name="Bergen Flyklubb",
        homepage="https://bfk.example.no",
        reference_icao="ENBR",
        latitude=Decimal("60.293611"),
        longitude=Decimal("5.218056"),
        country="NO",
        timezone="Europe/Oslo",
        locale="nb",
        currency_code="NOK",
        booking_enabled=False,
    )


@pytest.fixture
def app_client(db):
    return make_app_client(rights={"organization": "r"})


@pytest.fixture
def member(club):
    return MemberFactory(organization=club)


@pytest.fixture
def api(member, app_client):
    return MobileApi(issue_member_tokens(member, app_client).access_token)


@pytest.fixture
def winter():
    with time_machine.travel(WINTER, tick=False) as traveller:
        yield traveller


def setting(org, setting_id, value, value_type="bool", *, name=None, shown=True):
    return AppSetting.objects.create(
        organization=org,
        setting_id=setting_id,
        name=name or f"Setting {setting_id}",
        value=value,
        value_type=value_type,
        show_in_app=shown,
    )


# --- GET /organization --------------------------------------------------------------------------------------


def test_organization_shows_every_field(api, club, winter):
    response = api.get("/organization")

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store"
    assert response.json() == {
        "data": {
            "id": club.pk,
            "name": "Västerås Flygklubb",
            "homepage": "https://vfk.example.se",
            "location": {
                "reference_icao": "ESOW",
                "latitude": 59.589444,
                "longitude": 16.633611,
                "country": "SE",
                "timezone": "Europe/Stockholm",
                "utc_offset": "+01:00",
            },
            "date_format": "Y-m-d",
            "locale": "sv",
            "currency": {"code": "SEK", "symbol": "kr"},
            "booking": {
                "enabled": True,
                "cancel_reason_required": True,
                "standard_length_hours": 1.5,
                "use_expected_airborne": True,
            },
        }
    }


@pytest.mark.parametrize(
    ("zone", "moment", "offset"),
    [
        ("Europe/Stockholm", WINTER, "+01:00"),
        ("Europe/Stockholm", SUMMER, "+02:00"),
        # The change to summer time: 01:00 UTC on 2026-03-29 is 03:00 CEST; a second before, 01:59:59 CET.
        ("Europe/Stockholm", dt.datetime(2026, 3, 29, 0, 59, 59, tzinfo=dt.UTC), "+01:00"),
        ("Europe/Stockholm", dt.datetime(2026, 3, 29, 1, 0, 0, tzinfo=dt.UTC), "+02:00"),
        ("America/St_Johns", WINTER, "-03:30"),
        ("Asia/Kathmandu", WINTER, "+05:45"),
        ("UTC", SUMMER, "+00:00"),
    ],
)
def test_organization_utc_offset_is_the_offset_right_now(api, club, zone, moment, offset):
    club.timezone = zone
    club.save()

    with time_machine.travel(moment, tick=False):
        location = api.get("/organization").json()["data"]["location"]

    assert (location["timezone"], location["utc_offset"]) == (zone, offset)


def test_organization_empty_values_are_null(app_client, winter):
    bare = OrganizationFactory(homepage="", reference_icao="", latitude=None, longitude=None, country="", locale="")
    api = MobileApi(issue_member_tokens(MemberFactory(organization=bare), app_client).access_token)

    data = api.get("/organization").json()["data"]

    assert data["homepage"] is None and data["locale"] is None
    assert data["location"] == {
        "reference_icao": None,
        "latitude": None,
        "longitude": None,
        "country": None,
        "timezone": "Europe/Stockholm",
        "utc_offset": "+01:00",
    }
    assert data["booking"] == {
        "enabled": True,
        "cancel_reason_required": False,
        "standard_length_hours": 2,
        "use_expected_airborne": False,
    }
    assert isinstance(data["booking"]["standard_length_hours"], float)


def test_organization_is_the_logins_own(club, other_club, member, app_client, winter):
    """The same person in another club: each login sees its own club, never the other."""
    elsewhere = MemberFactory(organization=other_club, user=member.user)
    here = MobileApi(issue_member_tokens(member, app_client).access_token).get("/organization").json()["data"]
    there = MobileApi(issue_member_tokens(elsewhere, app_client).access_token).get("/organization").json()["data"]

    assert (here["id"], here["name"], here["booking"]["enabled"]) == (club.pk, "Västerås Flygklubb", True)
    assert (there["id"], there["name"], there["booking"]["enabled"]) == (other_club.pk, "Bergen Flyklubb", False)
    assert there["location"]["timezone"] == "Europe/Oslo" and there["currency"]["code"] == "NOK"


# --- GET /organization/settings -------------------------------------------------------------------------------


def test_settings_lists_those_shown_in_the_app_by_setting_id(api, club, other_club):
    setting(club, 1001, "false", name="Hide the transactions")
    setting(club, 1000, "true", name="Hide the balance in the app's lobby")
    setting(club, 1002, "25", "int", name="Days shown")
    setting(club, 999, "Welcome!", "text", name="Greeting")
    setting(club, 1500, "true", name="Internal", shown=False)
    setting(other_club, 998, "true", name="Another club's")

    response = api.get("/organization/settings")

    assert response.status_code == 200, response.content
    assert response.json() == {
        "data": [
            {"id": 999, "value": "Welcome!", "value_type": "text", "name": "Greeting"},
            {"id": 1000, "value": True, "value_type": "bool", "name": "Hide the balance in the app's lobby"},
            {"id": 1001, "value": False, "value_type": "bool", "name": "Hide the transactions"},
            {"id": 1002, "value": 25, "value_type": "int", "name": "Days shown"},
        ],
        "meta": {"count": 4, "limit": 100, "offset": 0, "has_more": False},
        "links": {"next": None},
    }


@pytest.mark.parametrize(
    ("value", "value_type", "typed"),
    [
        ("true", "bool", True),
        ("1", "bool", True),
        ("Yes", "bool", True),
        (" on ", "bool", True),
        ("false", "bool", False),
        ("0", "bool", False),
        ("NO", "bool", False),
        ("off", "bool", False),
        ("", "bool", None),
        ("maybe", "bool", None),
        ("42", "int", 42),
        ("-7", "int", -7),
        (" 3 ", "int", 3),
        ("", "int", None),
        ("4.5", "int", None),
        ("1e3", "int", None),
        ("9" * 19, "int", None),
        ("  spaced  ", "text", "  spaced  "),
        ("", "text", None),
        ("true", "text", "true"),
    ],
)
def test_settings_values_are_typed_by_value_type(api, club, value, value_type, typed):
    setting(club, 1000, value, value_type)

    item = api.get("/organization/settings").json()["data"][0]

    assert item["value"] == typed and type(item["value"]) is type(typed)
    assert item["value_type"] == value_type


def test_settings_empty_list(api, club, other_club):
    setting(other_club, 1000, "true")
    setting(club, 1000, "true", shown=False)

    body = api.get("/organization/settings?include_total=true").json()

    assert body == {
        "data": [],
        "meta": {"count": 0, "limit": 100, "offset": 0, "has_more": False, "total": 0},
        "links": {"next": None},
    }


def test_settings_pages_with_limit_offset_and_total(api, club):
    for setting_id in (1003, 1001, 1000, 1002, 1004):
        setting(club, setting_id, "true")

    first = api.get("/organization/settings?limit=2&include_total=true").json()
    last = api.get("/organization/settings?limit=2&offset=4").json()

    assert [item["id"] for item in first["data"]] == [1000, 1001]
    assert first["meta"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "total": 5}
    assert first["links"]["next"].endswith("/mobile/v5/organization/settings?limit=2&include_total=true&offset=2")
    assert [item["id"] for item in last["data"]] == [1004]
    assert last["meta"]["has_more"] is False and last["links"]["next"] is None


def test_settings_exclude_leaves_fields_out(api, club):
    setting(club, 1000, "true")

    items = api.get("/organization/settings?exclude=name,value_type").json()["data"]

    assert items == [{"id": 1000, "value": True}]


@pytest.mark.parametrize(
    ("query", "code", "field"),
    [
        ("include=status", 10005, "include"),
        ("exclude=colour", 10005, "exclude"),
        ("limit=0", 10005, "limit"),
        ("limit=501", 10005, "limit"),
        ("offset=-1", 10005, "offset"),
        ("include_total=yes", 10005, "include_total"),
        ("limit=%00", 10005, "limit"),
        ("limit=99999999999999999999999", 10005, "limit"),
        ("setting_id=1000", 10007, "setting_id"),
    ],
)
def test_settings_refuses_wrong_parameters(api, query, code, field):
    body = assert_problem(api.get(f"/organization/settings?{query}"), 400, code)

    assert problem_fields(body) == {field: code}


def test_settings_limit_500_is_allowed(api, club):
    setting(club, 1000, "true")

    assert api.get("/organization/settings?limit=500").json()["meta"]["limit"] == 500


# --- GET /sun-times ----------------------------------------------------------------------------------------


def sun(api, query=""):
    response = api.get(f"/sun-times{'?' + query if query else ''}")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_sun_times_shows_every_field(api, winter):
    data = sun(api, "date_from=2026-06-21&date_to=2026-06-21")

    assert data["airport"] == {"icao": "ESOW", "latitude": 59.589444, "longitude": 16.633611}
    assert data["timezone"] == "Europe/Stockholm"
    (day,) = data["days"]
    assert set(day) == {"date", "utc_offset", "dawn", "sunrise", "sunset", "dusk"}
    assert (day["date"], day["utc_offset"]) == ("2026-06-21", "+02:00")
    # Västerås at midsummer (NOAA; astral 3.2 within a minute): civil dawn 01:57 local time on the same date,
    # sunrise 03:34, sunset 22:16, civil dusk 23:54 (CEST).
    expected = {
        "dawn": "2026-06-20T23:57:00Z",
        "sunrise": "2026-06-21T01:34:00Z",
        "sunset": "2026-06-21T20:16:30Z",
        "dusk": "2026-06-21T21:54:00Z",
    }
    for event, at in expected.items():
        found = dt.datetime.fromisoformat(day[event]["at"])
        assert abs(found - dt.datetime.fromisoformat(at)) <= dt.timedelta(minutes=2), (event, found)
        assert day[event]["local"].startswith("2026-06-21T") and day[event]["local"].endswith("+02:00")
    for event in ("dawn", "sunrise", "sunset", "dusk"):
        at, local = day[event]["at"], day[event]["local"]
        assert len(at) == len("2026-06-21T01:28:00Z")  # whole seconds
        assert dt.datetime.fromisoformat(at) == dt.datetime.fromisoformat(local)


def test_sun_times_default_is_today_for_a_month(api, winter):
    days = sun(api)["days"]

    # Today in the organization's zone is 2026-11-25: through the day before the same day next month.
    assert [day["date"] for day in days][:2] == ["2026-11-25", "2026-11-26"]
    assert days[-1]["date"] == "2026-12-24"
    assert len(days) == 30


def test_sun_times_today_is_the_organizations(api, club):
    # 23:30 UTC on 2026-11-24 is already the 25th in Stockholm.
    with time_machine.travel(dt.datetime(2026, 11, 24, 23, 30, tzinfo=dt.UTC), tick=False):
        days = sun(api)["days"]

    assert days[0]["date"] == "2026-11-25"


@pytest.mark.parametrize(
    ("query", "first", "last", "count"),
    [
        ("date_from=2026-01-31", "2026-01-31", "2026-02-28", 29),  # February has no 31st
        ("date_from=2026-12-15", "2026-12-15", "2027-01-14", 31),
        ("date_from=2028-01-30", "2028-01-30", "2028-02-29", 31),  # leap year: the day before March 1st... 29th
        ("date_to=2026-11-30", "2026-11-25", "2026-11-30", 6),  # date_from defaults to today
        ("date_to=2026-11-25", "2026-11-25", "2026-11-25", 1),
        ("date_from=2026-11-01&date_to=2027-01-01", "2026-11-01", "2027-01-01", 62),  # the most: 62 days
        ("date_from=2026-01-01&date_to=2026-01-01", "2026-01-01", "2026-01-01", 1),
    ],
)
def test_sun_times_range(api, winter, query, first, last, count):
    days = sun(api, query)["days"]

    assert (days[0]["date"], days[-1]["date"], len(days)) == (first, last, count)
    dates = [dt.date.fromisoformat(day["date"]) for day in days]
    assert all(later - earlier == dt.timedelta(days=1) for earlier, later in itertools.pairwise(dates))


@pytest.mark.parametrize(
    ("query", "code", "field"),
    [
        ("date_from=2026-11-01&date_to=2027-01-02", 10005, "date_to"),  # 63 days
        ("date_from=2026-01-01&date_to=2026-12-31", 10005, "date_to"),
        ("date_from=2026-06-02&date_to=2026-06-01", 10005, "date_to"),  # before date_from
        ("date_to=2026-11-24", 10005, "date_to"),  # before today, the default date_from
        ("date_from=2026-02-30", 10110, "date_from"),
        ("date_from=26-06-01", 10110, "date_from"),
        ("date_to=2026-6-1", 10110, "date_to"),
        ("date_from=2026-06-01T00:00:00Z", 10110, "date_from"),
        ("date_from=99999-01-01", 10110, "date_from"),
        ("date_from=%00", 10110, "date_from"),
        ("date_from=2026-06-01%00", 10110, "date_from"),
        ("date_from=%ED%A0%80", 10110, "date_from"),  # a lone surrogate's bytes
        ("date_from=today", 10110, "date_from"),
        ("date_from=", 10005, "date_from"),
        ("date_from=2026-06-01&date_from=2026-06-02", 10005, "date_from"),
        ("from=2026-06-01", 10007, "from"),
    ],
)
def test_sun_times_refuses_wrong_dates(api, winter, query, code, field):
    body = assert_problem(api.get(f"/sun-times?{query}"), 400, code)

    assert problem_fields(body) == {field: code}


def test_sun_times_two_bad_dates_are_10005_naming_both(api):
    body = assert_problem(api.get("/sun-times?date_from=x&date_to=y"), 400, 10005)

    assert problem_fields(body) == {"date_from": 10110, "date_to": 10110}


@pytest.mark.parametrize(("first", "last"), [("0001-01-01", "0001-01-31"), ("9999-12-01", "9999-12-31")])
@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_sun_times_at_the_edges_of_the_calendar(api, club, zone, first, last):
    club.timezone = zone
    club.save()

    days = sun(api, f"date_from={first}&date_to={last}")["days"]

    assert len(days) == 31


def test_sun_times_default_at_the_end_of_the_calendar(api):
    days = sun(api, "date_from=9999-12-20")["days"]

    assert (days[0]["date"], days[-1]["date"]) == ("9999-12-20", "9999-12-31")


def test_sun_times_without_coordinates_has_no_days(app_client, winter):
    for latitude, longitude in ((None, None), (Decimal("59.5"), None), (None, Decimal("16.6"))):
        bare = OrganizationFactory(reference_icao="", latitude=latitude, longitude=longitude)
        api = MobileApi(issue_member_tokens(MemberFactory(organization=bare), app_client).access_token)

        data = sun(api)

        assert data["days"] == []
        assert data["airport"] == {
            "icao": None,
            "latitude": None if latitude is None else float(latitude),
            "longitude": None if longitude is None else float(longitude),
        }
        assert data["timezone"] == "Europe/Stockholm"
    # The range is still checked.
    assert_problem(api.get("/sun-times?date_from=2026-01-01&date_to=2026-12-31"), 400, 10005)


@pytest.mark.parametrize(
    ("place", "day"),
    [
        # Tromsø and Longyearbyen: midnight sun in June; Longyearbyen's polar night in December.
        (("69.649200", "18.955300", "Europe/Oslo"), "2026-06-21"),
        (("78.223200", "15.626700", "Arctic/Longyearbyen"), "2026-06-21"),
        (("78.223200", "15.626700", "Arctic/Longyearbyen"), "2026-12-21"),
    ],
)
def test_sun_times_polar_days_and_nights_are_null(api, club, place, day):
    club.latitude, club.longitude, club.timezone = Decimal(place[0]), Decimal(place[1]), place[2]
    club.save()

    (found,) = sun(api, f"date_from={day}&date_to={day}")["days"]

    assert found == {
        "date": day,
        "utc_offset": "+02:00" if day.endswith("06-21") else "+01:00",
        "dawn": None,
        "sunrise": None,
        "sunset": None,
        "dusk": None,
    }


def test_sun_times_tromso_polar_night_has_civil_twilight_only(api, club):
    club.latitude, club.longitude, club.timezone = Decimal("69.6492"), Decimal("18.9553"), "Europe/Oslo"
    club.save()

    (day,) = sun(api, "date_from=2026-12-21&date_to=2026-12-21")["days"]

    assert day["sunrise"] is None and day["sunset"] is None
    assert day["dawn"]["local"].startswith("2026-12-21T09:") and day["dusk"]["local"].startswith("2026-12-21T13:")


def test_sun_times_over_the_change_to_summer_time(api):
    days = sun(api, "date_from=2026-03-28&date_to=2026-03-30")["days"]

    assert [day["utc_offset"] for day in days] == ["+01:00", "+02:00", "+02:00"]
    assert [day["sunrise"]["local"][-6:] for day in days] == ["+01:00", "+02:00", "+02:00"]
    # The UTC sunrise comes a couple of minutes earlier each day; the local one jumps an hour later.
    sunrises = [dt.datetime.fromisoformat(day["sunrise"]["at"]) for day in days]
    assert all(
        dt.timedelta(minutes=-5) < later - earlier - dt.timedelta(days=1) < dt.timedelta(0)
        for earlier, later in itertools.pairwise(sunrises)
    )
    assert days[0]["sunrise"]["local"][11:13] == "05" and days[1]["sunrise"]["local"][11:13] == "06"


def test_sun_times_over_the_change_back_to_winter_time(api):
    days = sun(api, "date_from=2026-10-24&date_to=2026-10-25")["days"]

    assert [day["utc_offset"] for day in days] == ["+02:00", "+01:00"]
    assert [day["sunset"]["local"][-6:] for day in days] == ["+02:00", "+01:00"]


def test_sun_times_are_the_logins_organizations(club, other_club, member, app_client, winter):
    elsewhere = MemberFactory(organization=other_club, user=member.user)
    there = MobileApi(issue_member_tokens(elsewhere, app_client).access_token)

    data = sun(there, "date_from=2026-12-21&date_to=2026-12-21")

    assert data["airport"] == {"icao": "ENBR", "latitude": 60.293611, "longitude": 5.218056}
    assert data["timezone"] == "Europe/Oslo"
    # Bergen lies 11° west of Västerås: its sun rises about three quarters of an hour later.
    here = sun(
        MobileApi(issue_member_tokens(member, app_client).access_token), "date_from=2026-12-21&date_to=2026-12-21"
    )
    west, east = data["days"][0]["sunrise"]["at"], here["days"][0]["sunrise"]["at"]
    assert dt.datetime.fromisoformat(west) - dt.datetime.fromisoformat(east) > dt.timedelta(minutes=30)


# --- rights, tokens and conventions (all three) -----------------------------------------------------------

PATHS = ["/organization", "/organization/settings", "/sun-times"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "rights", [{}, {"objects": "r", "bookings": "rw", "flightlogs": "r", "transactions": "r"}, {"organization": "w"}]
)
def test_the_organization_read_right_is_needed(member, path, rights):
    api = MobileApi(issue_member_tokens(member, make_app_client(rights=rights)).access_token)

    assert_problem(api.get(path), 403, 10002)


@pytest.mark.parametrize("path", PATHS)
def test_every_right_with_organization_read_is_enough(member, path):
    for rights in ({"organization": "r"}, {"organization": "rw"}, ALL_MOBILE_RIGHTS):
        api = MobileApi(issue_member_tokens(member, make_app_client(rights=rights)).access_token)
        assert api.get(path).status_code == 200


@pytest.mark.parametrize("path", PATHS)
def test_the_apps_own_token_is_refused(app_client, path):
    assert_problem(MobileApi(issue_app_token(app_client)).get(path), 403, 10305)


@pytest.mark.parametrize("path", PATHS)
def test_without_a_token_401(path):
    response = MobileApi().get(path)

    assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("path", PATHS)
def test_unknown_parameter_is_400_10007(api, path):
    body = assert_problem(api.get(f"{path}?surprise=1"), 400, 10007)

    assert problem_fields(body) == {"surprise": 10007}


@pytest.mark.parametrize("path", PATHS)
def test_trailing_slash_is_404(api, path):
    assert_problem(api.get(f"{path}/"), 404, 10100)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_other_methods_are_405_with_allow(api, path, method):
    response = api.call(method, path, json={})

    assert_problem(response, 405, 10050)
    assert {name.strip() for name in response["Allow"].split(",")} - {"HEAD", "OPTIONS"} == {"GET"}


@pytest.mark.parametrize("path", PATHS)
def test_plain_http_is_403_10000(api, path):
    response = Client().get(f"/mobile/v5{path}", HTTP_AUTHORIZATION=f"Bearer {api.bearer}")

    assert_problem(response, 403, 10000)


@pytest.mark.parametrize("path", PATHS)
def test_rate_limit_headers(api, path):
    response = api.get(path)

    assert response["RateLimit-Limit"] == "120"
    assert response["RateLimit-Remaining"] == "119"


# --- query counts -------------------------------------------------------------------------------------------
# A member's call costs two queries before the view (the access token with its client, the login with its
# member and organization); see tests/test_mobile_v5_client_me.py.


def test_organization_costs_no_query_of_its_own(api, django_assert_num_queries):
    api.get("/organization")

    with django_assert_num_queries(2):
        assert api.get("/organization").status_code == 200


def test_sun_times_costs_no_query_of_its_own(api, django_assert_num_queries):
    api.get("/sun-times")

    with django_assert_num_queries(2):
        assert api.get("/sun-times?date_from=2026-11-01&date_to=2027-01-01").status_code == 200


@pytest.mark.parametrize("rows", [1, 40])
def test_settings_cost_one_query_for_one_row_or_many(api, club, rows, django_assert_max_num_queries):
    for index in range(rows):
        setting(club, 1000 + index, str(index), "int")
    api.get("/organization/settings")

    # Before the view two (see above); the page one, and the total one more.
    with django_assert_max_num_queries(3):
        assert len(api.get("/organization/settings?limit=500").json()["data"]) == rows
    with django_assert_max_num_queries(4):
        body = api.get("/organization/settings?include_total=true&exclude=name").json()
    assert body["meta"]["total"] == rows


# --- the replies held to the Mobile OpenAPI document ----------------------------------------------------------


def test_replies_conform_to_the_mobile_document(api, club, winter):
    document = Client().get("/mobile/v5/openapi.json", secure=True).json()
    conformance = Conformance(document)
    setting(club, 1000, "true")
    setting(club, 1002, "12", "int")
    setting(club, 1003, "Hello", "text")
    setting(club, 1004, "", "bool")

    conformance.check("GET", "/organization", api.get("/organization"), 200)
    conformance.check("GET", "/organization/settings", api.get("/organization/settings?include_total=true"), 200)
    conformance.check("GET", "/sun-times", api.get("/sun-times"), 200)
    club.latitude, club.longitude, club.timezone = Decimal("78.2232"), Decimal("15.6267"), "Arctic/Longyearbyen"
    club.save()
    conformance.check("GET", "/sun-times", api.get("/sun-times?date_from=2026-04-01&date_to=2026-05-01"), 200)
    conformance.check("GET", "/sun-times", api.get("/sun-times?date_from=2026-02-30"), 400)
    conformance.check("GET", "/sun-times", api.get("/sun-times?date_from=2026-01-01&date_to=2026-12-31"), 400)
    conformance.check("GET", "/organization/settings", api.get("/organization/settings?limit=0"), 400)
    for path in PATHS:
        conformance.check("GET", path, api.get(f"{path}?surprise=1"), 400)
        conformance.check("GET", path, MobileApi().get(path), 401)
        conformance.check_method_not_allowed("POST", path, api.call("POST", path))
    no_right = MobileApi(issue_member_tokens(MemberFactory(organization=club), make_app_client(rights={})).access_token)
    conformance.check("GET", "/sun-times", no_right.get("/sun-times"), 403)


def test_the_document_names_the_date_codes_of_sun_times():
    document = Client().get("/mobile/v5/openapi.json", secure=True).json()
    operation = document["paths"]["/sun-times"]["get"]
    codes = operation["responses"]["400"]["content"]["application/problem+json"]["schema"]["properties"]["code"]

    assert {10005, 10007, 10110} <= set(codes["enum"])
    assert {parameter["name"] for parameter in operation["parameters"]} == {"date_from", "date_to"}
    assert operation["x-right"] == {"module": "organization", "right": "r"}


# --- the organization website: booking and app settings --------------------------------------------------------


@pytest.fixture
def club_admin(club):
    return make_admin(club, first_name="Karin", last_name="Lindqvist")


def organization_page(client, org):
    return client.get(f"{ADMIN}/accounts/organization/{org.pk}/change/")


def test_the_organization_page_shows_the_booking_settings_and_app_settings(club, club_admin):
    setting(club, 1000, "true", name="Hide the balance")

    page = organization_page(web(club_admin), club)

    assert page.status_code == 200
    form = page.context["adminform"].form
    for name in (
        "booking_enabled",
        "booking_cancel_reason_required",
        "booking_standard_length_hours",
        "booking_use_expected_airborne",
        "booking_hide_booker_details",
        "booking_minimum_balance",
    ):
        assert name in form.fields, name
    (inline,) = [inline for inline in page.context["inline_admin_formsets"] if inline.opts.model is AppSetting]
    assert [form.instance.setting_id for form in inline.formset.forms if form.instance.pk] == [1000]


def test_an_administrator_changes_booking_and_app_settings(club, other_club, club_admin):
    own = setting(club, 1000, "false", name="Hide the balance")
    setting(other_club, 1000, "true", name="Bergen's")
    client = web(club_admin)
    data = form_data(organization_page(client, club))
    data.update(booking_enabled="", booking_standard_length_hours="3.5")
    prefix = "app_settings"
    data[f"{prefix}-0-value"] = "true"
    data.update(
        {
            f"{prefix}-1-setting_id": "1001",
            f"{prefix}-1-name": "Hide the transactions",
            f"{prefix}-1-value": "0",
            f"{prefix}-1-value_type": "bool",
            f"{prefix}-1-show_in_app": "on",
            f"{prefix}-TOTAL_FORMS": "2",
        }
    )

    response = client.post(f"{ADMIN}/accounts/organization/{club.pk}/change/", data)

    assert response.status_code == 302, response.context and response.context["errors"]
    club.refresh_from_db()
    own.refresh_from_db()
    assert club.booking_enabled is False and club.booking_standard_length_hours == Decimal("3.5")
    assert own.value == "true"
    assert list(club.app_settings.values_list("setting_id", "value")) == [(1000, "true"), (1001, "0")]
    assert AppSetting.objects.get(organization=other_club).value == "true"


@pytest.mark.parametrize(("value", "value_type"), [("maybe", "bool"), ("4.5", "int"), ("", "int")])
def test_a_value_not_of_its_kind_is_refused_on_the_page(club, club_admin, value, value_type):
    client = web(club_admin)
    data = form_data(organization_page(client, club))
    data.update(
        {
            "app_settings-0-setting_id": "1000",
            "app_settings-0-name": "Hide the balance",
            "app_settings-0-value": value,
            "app_settings-0-value_type": value_type,
            "app_settings-0-show_in_app": "on",
        }
    )

    response = client.post(f"{ADMIN}/accounts/organization/{club.pk}/change/", data)

    assert response.status_code == 200
    assert not AppSetting.objects.filter(organization=club).exists()


def test_another_organizations_administrator_sees_no_app_settings_of_this_one(club, other_club):
    setting(club, 1000, "true")
    bergen_admin = make_admin(other_club)
    client = web(bergen_admin)

    assert organization_page(client, club).status_code == 302
    page = organization_page(client, other_club)
    (inline,) = [inline for inline in page.context["inline_admin_formsets"] if inline.opts.model is AppSetting]
    assert [form.instance.pk for form in inline.formset.forms if form.instance.pk] == []


def test_a_setting_id_twice_is_refused_on_the_page(club, club_admin):
    setting(club, 1000, "true", name="Hide the balance")
    client = web(club_admin)
    data = form_data(organization_page(client, club))
    data.update(
        {
            "app_settings-1-setting_id": "1000",
            "app_settings-1-name": "Again",
            "app_settings-1-value": "false",
            "app_settings-1-value_type": "bool",
            "app_settings-1-show_in_app": "on",
        }
    )

    response = client.post(f"{ADMIN}/accounts/organization/{club.pk}/change/", data)

    assert response.status_code == 200
    assert list(club.app_settings.values_list("setting_id", "value")) == [(1000, "true")]


# --- the demo world -----------------------------------------------------------------------------------------


def test_the_demo_clubs_member_sees_its_app_settings(settings, tmp_path):
    from demo.world import build_world

    settings.MEDIA_ROOT = tmp_path
    world = build_world()
    club = world["organization"]["id"]
    member = MemberFactory._meta.model.objects.get(user_id=world["mobile"]["member"]["id"], organization_id=club)
    api = MobileApi(issue_member_tokens(member, make_app_client(rights={"organization": "r"})).access_token)

    items = api.get("/organization/settings").json()["data"]

    assert items == [
        {"id": 1000, "value": False, "value_type": "bool", "name": "Hide the balance in the app's lobby"},
        {"id": 1001, "value": False, "value_type": "bool", "name": "Hide the transactions"},
    ]
    assert AppSetting.objects.filter(organization_id=club, show_in_app=False).count() == 1
    days = api.get("/sun-times").json()["data"]["days"]
    assert len(days) >= 28 and days[0]["sunrise"] is not None


def test_sun_times_of_a_local_mean_time_of_old_have_offsets_to_the_minute(api):
    reply = api.get("/sun-times", data={"date_from": "1850-01-01", "date_to": "1850-01-01"})
    day = reply.json()["data"]["days"][0]
    assert day["utc_offset"] == "+01:12"
    assert day["sunrise"]["local"].endswith("+01:12")
