"""The flight log on the organization website: flights of the organization's own objects entered as local
date and clock times (the midnight rule), saved through the services so that the object's totals move;
flight types, approvals and airports. Another organization's rows are neither listed nor reachable."""

import datetime as dt
from decimal import Decimal

import pytest

from flightlog.models import Airport, FlightApproval, FlightLogEntry, FlightType
from objects_app.models import BookableObject
from tests.admin_fixtures import ADMIN, form_data, listed, make_superuser, page_errors, web
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import (
    AirportFactory,
    FlightApprovalFactory,
    FlightFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
)

FLIGHTS = f"{ADMIN}/flightlog/flightlogentry"
TYPES = f"{ADMIN}/flightlog/flighttype"
APPROVALS = f"{ADMIN}/flightlog/flightapproval"
AIRPORTS = f"{ADMIN}/flightlog/airport"
UTC = dt.UTC


def at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


@pytest.fixture
def client(admin):
    return web(admin)


@pytest.fixture
def plane(org):
    return ObjectFactory(organization=org, registration="SE-KBA")


@pytest.fixture
def anna(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg", member_number="12")


@pytest.fixture
def airports():
    return AirportFactory(icao="ESOW", name="Västerås"), AirportFactory(icao="ESSB", name="Stockholm Bromma")


def totals(obj) -> tuple:
    obj = BookableObject.objects.get(pk=obj.pk)
    return obj.airborne_minutes, obj.block_minutes, obj.tach_hours, obj.landings


def flight_form(plane, pilot, *, date="2026-11-20", times=("10:00", "10:05", "11:05", "11:10"), **extra) -> dict:
    data = {
        "object": str(plane.pk),
        "date": date,
        "flight_type": "",
        "departure_airport": "",
        "arrival_airport": "",
        "blockoff": times[0],
        "takeoff": times[1],
        "landing": times[2],
        "blockon": times[3],
        "departure_tachometer": "100.00",
        "arrival_tachometer": "101.10",
        "departure_hobbs": "",
        "arrival_hobbs": "",
        "via_route": "",
        "pilot": str(pilot.pk),
        "instructor": "",
        "scout": "",
        "is_solo_instruction": "unknown",
        "uplift_fuel": "",
        "uplift_oil": "",
        "number_of_flights": "1",
        "daily_check": "unknown",
        "comment": "",
        "remark": "",
    }
    data.update(extra)
    return data


# --- the list --------------------------------------------------------------------------------------------


def test_the_list_shows_own_flights_with_names_icao_and_local_times(client, org, other_org, plane, anna, airports):
    esow, essb = airports
    flight = FlightFactory(
        object=plane,
        pilot=anna,
        departure_airport=esow,
        arrival_airport=essb,
        blockoff_at=at(2026, 11, 20, 22, 30),
        blockon_at=at(2026, 11, 20, 23, 40),
    )
    foreign = FlightFactory(organization=other_org)
    theirs = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=theirs, organization=org)
    shared = FlightFactory(organization=other_org, object=theirs)

    response = client.get(f"{FLIGHTS}/")

    assert listed(response) == [flight]
    assert foreign not in listed(response) and shared not in listed(response)
    html = response.content.decode()
    assert "Anna Berg" in html and anna.user.username not in html
    assert "ESOW" in html and "ESSB" in html
    assert "23:30" in html  # 22:30 UTC in Stockholm
    assert "00:40 (+1)" in html  # block on after midnight, on the day after the flight's date
    assert "LN-ABC" not in html


def test_another_organizations_flight_is_not_reachable_by_address(client, other_org):
    foreign = FlightFactory(organization=other_org)
    before = list(FlightLogEntry.objects.values())

    for address in (
        f"{FLIGHTS}/{foreign.pk}/change/",
        f"{FLIGHTS}/{foreign.pk}/delete/",
        f"{FLIGHTS}/{foreign.pk}/history/",
    ):
        response = client.get(address)
        assert response.status_code == 302, address
        assert response["Location"] == f"{ADMIN}/"
    client.post(f"{FLIGHTS}/{foreign.pk}/delete/", {"post": "yes"})
    client.post(f"{FLIGHTS}/{foreign.pk}/change/", flight_form(foreign.object, foreign.pilot, comment="Taken"))
    client.post(f"{FLIGHTS}/", {"action": "delete_selected", "_selected_action": [foreign.pk], "post": "yes"})

    assert list(FlightLogEntry.objects.values()) == before


# --- the entry form --------------------------------------------------------------------------------------


def test_a_flight_is_entered_in_local_time_and_moves_the_totals(client, org, plane, anna, airports):
    response = client.post(
        f"{FLIGHTS}/add/",
        flight_form(plane, anna, departure_airport=str(airports[0].pk), number_of_flights="2"),
    )

    assert response.status_code == 302, page_errors(response)
    flight = FlightLogEntry.objects.get()
    assert (flight.blockoff_at, flight.takeoff_at) == (at(2026, 11, 20, 9, 0), at(2026, 11, 20, 9, 5))
    assert (flight.landing_at, flight.blockon_at) == (at(2026, 11, 20, 10, 5), at(2026, 11, 20, 10, 10))
    assert flight.pilot == anna and flight.departure_airport == airports[0]
    assert totals(plane) == (60, 70, Decimal("1.10"), 2)


def test_the_entry_form_applies_the_midnight_rule(client, org, plane, anna):
    response = client.post(f"{FLIGHTS}/add/", flight_form(plane, anna, times=("23:30", "23:45", "00:35", "00:40")))

    assert response.status_code == 302, page_errors(response)
    flight = FlightLogEntry.objects.get()
    assert flight.date == dt.date(2026, 11, 20)
    assert flight.blockoff_at == at(2026, 11, 20, 22, 30)
    assert flight.landing_at == at(2026, 11, 20, 23, 35)
    assert flight.blockon_at == at(2026, 11, 20, 23, 40)
    assert totals(plane)[:2] == (50, 70)


def test_support_enters_a_flight_in_the_objects_organizations_zone(db):
    london = OrganizationFactory(timezone="Europe/London")
    jet = ObjectFactory(organization=london)
    crew = MemberFactory(organization=london)
    support = web(make_superuser())

    response = support.post(f"{FLIGHTS}/add/", flight_form(jet, crew, times=("23:50", "00:05", "01:00", "01:10")))

    assert response.status_code == 302, page_errors(response)
    flight = FlightLogEntry.objects.get()
    assert flight.blockoff_at == at(2026, 11, 20, 23, 50)
    assert flight.takeoff_at == at(2026, 11, 21, 0, 5)
    assert flight.blockon_at == at(2026, 11, 21, 1, 10)


def test_the_change_form_shows_local_clock_times_and_saves_the_difference(client, plane, anna):
    client.post(f"{FLIGHTS}/add/", flight_form(plane, anna))
    flight = FlightLogEntry.objects.get()
    page = client.get(f"{FLIGHTS}/{flight.pk}/change/")
    data = form_data(page)
    assert (data["blockoff"], data["blockon"]) == ("10:00:00", "11:10:00")

    data.update(landing="11:35", blockon="11:40", arrival_tachometer="101.50")
    response = client.post(f"{FLIGHTS}/{flight.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    flight.refresh_from_db()
    assert flight.blockon_at == at(2026, 11, 20, 10, 40)
    assert totals(plane) == (90, 100, Decimal("1.50"), 1)


def test_a_clock_time_the_clocks_skip_is_an_error_on_its_field(client, plane, anna):
    response = client.post(
        f"{FLIGHTS}/add/", flight_form(plane, anna, date="2026-03-29", times=("01:30", "02:30", "03:20", "03:30"))
    )

    assert "takeoff" in page_errors(response)
    assert not FlightLogEntry.objects.exists()


def test_a_refusal_of_the_service_shows_on_its_field_and_saves_nothing(client, plane, anna):
    response = client.post(f"{FLIGHTS}/add/", flight_form(plane, anna, arrival_tachometer="90.00"))

    assert "arrival_tachometer" in page_errors(response)
    assert not FlightLogEntry.objects.exists()
    assert totals(plane) == (0, 0, Decimal("0.00"), 0)


def test_deleting_a_flight_takes_it_from_the_totals(client, plane, anna):
    client.post(f"{FLIGHTS}/add/", flight_form(plane, anna))
    flight = FlightLogEntry.objects.get()

    response = client.post(f"{FLIGHTS}/{flight.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not FlightLogEntry.objects.exists()
    assert totals(plane) == (0, 0, Decimal("0.00"), 0)


def test_choices_are_the_organizations_own(client, org, other_org, plane, anna):
    stranger = MemberFactory(organization=other_org, user__first_name="Sven", user__last_name="Strand")
    theirs = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=theirs, organization=org)
    own_type, their_type = FlightTypeFactory(organization=org), FlightTypeFactory(organization=other_org)
    own_remark, their_remark = RemarkFactory(object=plane), RemarkFactory(object=theirs)

    form = client.get(f"{FLIGHTS}/add/").context["adminform"].form

    assert list(form.fields["object"].queryset) == [plane]
    assert stranger not in form.fields["pilot"].queryset and anna in form.fields["pilot"].queryset
    assert list(form.fields["flight_type"].queryset) == [own_type] and their_type.pk
    assert list(form.fields["remark"].queryset) == [own_remark] and their_remark.pk
    labels = [label for _, label in form.fields["pilot"].choices]
    assert "Anna Berg (12)" in labels
    assert all(stranger.user.username not in str(label) for label in labels)

    response = client.post(f"{FLIGHTS}/add/", flight_form(theirs, stranger))
    errors = page_errors(response)
    assert "object" in errors and "pilot" in errors
    assert not FlightLogEntry.objects.exists()


# --- flight types, approvals, airports ----------------------------------------------------------------------


def test_flight_types_are_the_organizations_own(client, org, other_org):
    own = FlightTypeFactory(organization=org, name="School")
    foreign = FlightTypeFactory(organization=other_org, name="Bergen")

    assert listed(client.get(f"{TYPES}/")) == [own]
    assert client.get(f"{TYPES}/{foreign.pk}/change/").status_code == 302

    response = client.post(f"{TYPES}/add/", {"name": "Towing"})

    assert response.status_code == 302, page_errors(response)
    assert FlightType.objects.get(name="Towing").organization == org


def test_approvals_with_scoped_choices(client, org, other_org, plane, anna):
    school = FlightTypeFactory(organization=org, name="School")
    their_type = FlightTypeFactory(organization=other_org)
    foreign = FlightApprovalFactory(organization=other_org)
    stranger = MemberFactory(organization=other_org)

    page = client.get(f"{APPROVALS}/add/")
    form = page.context["adminform"].form
    assert list(form.fields["member"].queryset) == list(org.members.order_by("user__name"))
    assert stranger not in form.fields["member"].queryset
    assert list(form.fields["object"].queryset) == [plane]
    assert list(form.fields["flight_types"].queryset) == [school]

    response = client.post(f"{APPROVALS}/add/", {"member": anna.pk, "object": plane.pk, "flight_types": [school.pk]})
    assert response.status_code == 302, page_errors(response)
    approval = FlightApproval.objects.get(member=anna)
    assert list(approval.flight_types.all()) == [school]

    refused = client.post(
        f"{APPROVALS}/add/", {"member": stranger.pk, "object": plane.pk, "flight_types": [their_type.pk]}
    )
    assert {"member", "flight_types"} <= set(page_errors(refused))

    listing = client.get(f"{APPROVALS}/")
    assert listed(listing) == [approval]
    assert "Anna Berg" in listing.content.decode() and "School" in listing.content.decode()
    assert client.get(f"{APPROVALS}/{foreign.pk}/change/").status_code == 302


def test_administrators_look_airports_up_and_support_keeps_them(client):
    essb = AirportFactory(icao="ESSB", name="Stockholm Bromma")

    assert listed(client.get(f"{AIRPORTS}/")) == [essb]
    assert client.get(f"{AIRPORTS}/{essb.pk}/change/").status_code == 200  # a view-only page
    assert client.get(f"{AIRPORTS}/add/").status_code == 403
    client.post(f"{AIRPORTS}/{essb.pk}/change/", {"icao": "ESSB", "name": "Changed"})
    client.post(f"{AIRPORTS}/{essb.pk}/delete/", {"post": "yes"})
    assert Airport.objects.get().name == "Stockholm Bromma"

    support = web(make_superuser())
    response = support.post(f"{AIRPORTS}/add/", {"icao": "ESOW", "name": "Västerås", "latitude": "", "longitude": ""})
    assert response.status_code == 302, page_errors(response)
    assert Airport.objects.filter(icao="ESOW").exists()


def test_members_without_administration_do_not_enter(org):
    member = MemberFactory(organization=org)
    assert web(member.user).get(f"{FLIGHTS}/").status_code == 302  # to the login page


def test_times_out_of_order_after_midnight_are_refused_on_their_field(client, plane, anna):
    # Past midnight at takeoff (01:00), the landing at 00:30 cannot be on a third day: refused by the service.
    response = client.post(f"{FLIGHTS}/add/", flight_form(plane, anna, times=("23:00", "01:00", "00:30", "00:40")))

    errors = page_errors(response)
    assert "landing" in errors, errors
    assert not FlightLogEntry.objects.exists()
    assert totals(plane) == (0, 0, Decimal("0.00"), 0)
