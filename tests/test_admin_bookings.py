"""Bookings on the organization website: the organization's own objects' bookings, in its zone, saved through
bookings.services; another organization's bookings are neither listed nor reachable."""

import re

import pytest

from apicore.errors import ServiceError
from bookings.models import Booking
from bookings.services import booking_create, booking_delete, booking_update
from tests.admin_booking_fixtures import BOOKINGS, at, book
from tests.admin_booking_fixtures import booking_form as shared_booking_form
from tests.admin_fixtures import ADMIN, form_data, listed, make_admin_of, make_superuser, page_errors, web
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import BookingFactory, ObjectFactory, ObjectShareFactory


@pytest.fixture
def client(admin):
    return web(admin)


def booking_form(plane, user, **fields) -> dict:
    return shared_booking_form(plane, user, day="2026-11-20", **fields)


def page_data(client, booking) -> dict:
    """What a browser sends back from the booking's page left as it is; the date and time boxes are read
    from the page as shown (the organization's local time)."""
    response = client.get(f"{BOOKINGS}/{booking.pk}/change/")
    html = response.content.decode()
    data = form_data(response)
    for name in ("start_at", "end_at"):
        data.pop(name, None)
        for index in (0, 1):
            found = re.search(rf'name="{name}_{index}" value="([^"]*)"', html)
            data[f"{name}_{index}"] = found.group(1)
    return data


# --- the list --------------------------------------------------------------------------------------------


def test_the_list_shows_own_objects_bookings_by_start_with_names_and_local_times(
    client, org, other_org, plane, anna, erik
):
    late = book(plane, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0), user=erik)
    early = book(plane, at(2026, 7, 20, 9, 0), at(2026, 7, 20, 10, 30), user=anna, student=erik, is_primary=False)
    foreign = BookingFactory(organization=other_org)
    # An object of another organization shared with ours: its bookings are the owner's to manage.
    theirs = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=theirs, organization=org)
    shared = BookingFactory(organization=other_org, object=theirs)

    response = client.get(f"{BOOKINGS}/")

    assert listed(response) == [early, late]
    html = response.content.decode()
    assert "Anna Berg" in html and "Erik Lund" in html
    assert anna.username not in html
    # 09:00-10:30 UTC in Stockholm's summer time; 09:00-10:00 UTC in its winter time.
    assert '<td class="field-start">2026-07-20 11:00</td><td class="field-end">2026-07-20 12:30</td>' in html
    assert '<td class="field-start">2026-11-21 10:00</td><td class="field-end">2026-11-21 11:00</td>' in html
    assert "Queue" in html and "Primary" in html
    assert "LN-ABC" not in html
    assert foreign not in listed(response) and shared not in listed(response)


def test_the_list_filters_by_object_and_date(client, org, plane, anna):
    glider = ObjectFactory(organization=org, registration="SE-UXA")
    first = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    second = book(glider, at(2026, 11, 21, 9, 0), at(2026, 11, 21, 10, 0))
    night = book(glider, at(2026, 11, 21, 23, 30), at(2026, 11, 22, 0, 30))  # 00:30 local on the 22nd

    assert listed(client.get(f"{BOOKINGS}/", {"object__id__exact": glider.pk})) == [second, night]
    assert listed(client.get(f"{BOOKINGS}/", {"object__id__exact": plane.pk})) == [first]
    by_day = {"start_at__year": "2026", "start_at__month": "11", "start_at__day": "22"}
    assert listed(client.get(f"{BOOKINGS}/", by_day)) == [night]  # the local date
    assert listed(client.get(f"{BOOKINGS}/", {"q": "SE-UXA"})) == [second, night]
    # The object filter offers only this organization's objects that have bookings.
    choices = [str(choice["display"]) for choice in _filter_choices(client.get(f"{BOOKINGS}/"), "object")]
    assert "SE-KBA (C172)" in choices and "SE-UXA (C172)" in choices


def _filter_choices(response, title_field: str) -> list[dict]:
    for spec in response.context["cl"].filter_specs:
        if getattr(spec, "field_path", None) == title_field:
            return list(spec.choices(response.context["cl"]))[1:]
    raise AssertionError(f"no filter on {title_field}")


# --- tenancy ---------------------------------------------------------------------------------------------


def test_another_organizations_booking_is_not_reachable_by_address(client, other_org):
    foreign = BookingFactory(organization=other_org)
    before = list(Booking.objects.values())

    for address in (
        f"{BOOKINGS}/{foreign.pk}/change/",
        f"{BOOKINGS}/{foreign.pk}/delete/",
        f"{BOOKINGS}/{foreign.pk}/history/",
    ):
        response = client.get(address)
        assert response.status_code == 302, address
        assert response["Location"] == f"{ADMIN}/"
    client.post(f"{BOOKINGS}/{foreign.pk}/delete/", {"post": "yes"})
    client.post(f"{BOOKINGS}/{foreign.pk}/change/", booking_form(foreign.object, foreign.user, comment="Taken"))
    client.post(f"{BOOKINGS}/", {"action": "delete_selected", "_selected_action": [foreign.pk], "post": "yes"})

    assert list(Booking.objects.values()) == before


def test_a_shared_objects_booking_is_not_reachable_from_the_sharing_organization(client, org, other_org):
    theirs = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=theirs, organization=org)
    shared = BookingFactory(organization=other_org, object=theirs)

    assert client.get(f"{BOOKINGS}/{shared.pk}/change/").status_code == 302


def test_an_administrator_of_two_organizations_sees_the_current_ones(admin, org, other_org, plane):
    make_admin_of(admin, other_org)
    mine = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    theirs = BookingFactory(organization=other_org)
    client = web(admin)

    client.post(f"{ADMIN}/organization/switch/", {"organization": org.pk})
    assert listed(client.get(f"{BOOKINGS}/")) == [mine]
    client.post(f"{ADMIN}/organization/switch/", {"organization": other_org.pk})
    assert listed(client.get(f"{BOOKINGS}/")) == [theirs]


def test_a_superuser_sees_every_organizations_bookings(org, other_org, plane):
    mine = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    theirs = BookingFactory(organization=other_org, start_at=at(2026, 11, 20, 10, 0), end_at=at(2026, 11, 20, 11, 0))
    assert listed(web(make_superuser()).get(f"{BOOKINGS}/")) == [mine, theirs]


# --- the form --------------------------------------------------------------------------------------------


def test_the_form_offers_own_objects_and_members_by_name(client, org, other_org, plane, anna, erik):
    ObjectShareFactory(object=ObjectFactory(organization=other_org, registration="LN-ABC"), organization=org)
    ObjectFactory(organization=other_org, registration="LN-XYZ")
    outsider = MemberFactory(organization=other_org, user__first_name="Kari", user__last_name="Nord").user

    form = client.get(f"{BOOKINGS}/add/").context["adminform"].form

    assert [str(choice) for choice in form.fields["object"].queryset] == ["SE-KBA (C172)"]
    users = [label for value, label in form.fields["user"].choices if value]
    assert "Anna Berg" in users and "Erik Lund" in users
    assert "Kari Nord" not in users and outsider.username not in users
    assert users == sorted(users, key=str.lower)
    students = [label for value, label in form.fields["student"].choices if value]
    assert students == users


def test_a_booking_is_added_in_the_organizations_zone(client, admin, plane, anna, erik):
    data = booking_form(plane, anna, student=str(erik.pk), expected_airborne="1.5", comment="Circuits")

    response = client.post(f"{BOOKINGS}/add/", data)

    assert response.status_code == 302, page_errors(response)
    booking = Booking.objects.get()
    assert (booking.start_at, booking.end_at) == (at(2026, 11, 20, 9, 0), at(2026, 11, 20, 11, 0))
    assert (booking.user, booking.student, booking.created_by) == (anna, erik, admin)
    assert str(booking.expected_airborne) == "1.50" and booking.comment == "Circuits"


def test_start_must_be_before_end(client, plane, anna):
    for end in (("2026-11-20", "10:00"), ("2026-11-20", "09:00")):
        response = client.post(f"{BOOKINGS}/add/", booking_form(plane, anna, end=end))
        errors = page_errors(response)
        assert errors["end_at"] == ["The end must be after the start."]
        assert errors.get("") is None
    assert not Booking.objects.exists()


def test_another_organizations_object_or_person_cannot_be_posted(client, other_org, plane, anna):
    theirs = ObjectFactory(organization=other_org)
    outsider = MemberFactory(organization=other_org).user

    errors = page_errors(client.post(f"{BOOKINGS}/add/", booking_form(theirs, anna)))
    assert list(errors) == ["object", "rows"]
    errors = page_errors(client.post(f"{BOOKINGS}/add/", booking_form(plane, anna, student=str(outsider.pk))))
    assert list(errors) == ["student", "rows"]
    assert not Booking.objects.exists()


def test_a_booking_is_changed_and_deleted_through_the_services(client, plane, anna, erik):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna)
    data = page_data(client, booking)
    assert (data["start_at_0"], data["start_at_1"]) == ("2026-11-20", "10:00:00")  # local time on the form
    data.update({"student": str(erik.pk), "end_at_1": "12:15"})
    data.pop("is_primary")  # unticked

    data["_continue"] = "Save and continue editing"
    response = client.post(f"{BOOKINGS}/{booking.pk}/change/", data)

    # Into the queue: a new booking (webhooks hear booking.delete and booking.create), whose page follows.
    assert response.status_code == 302, page_errors(response)
    moved = Booking.objects.get()
    assert moved.pk != booking.pk
    assert response["Location"] == f"{BOOKINGS}/{moved.pk}/change/"
    assert (moved.student, moved.end_at, moved.is_primary) == (erik, at(2026, 11, 20, 11, 15), False)
    assert (moved.user, moved.created_at, moved.created_by) == (booking.user, booking.created_at, booking.created_by)

    response = client.post(f"{BOOKINGS}/{moved.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Booking.objects.exists()


def test_a_shared_objects_booker_from_the_other_organization_stays_on_the_form(client, org, plane):
    # Our object, shared with another club whose member booked it: the page keeps that booker.
    guest_club = OrganizationFactory(name="Gästklubben")
    ObjectShareFactory(object=plane, organization=guest_club)
    guest = MemberFactory(organization=guest_club, user__first_name="Gunnar", user__last_name="Gäst").user
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=guest)

    data = page_data(client, booking)
    data["comment"] = "Changed"
    response = client.post(f"{BOOKINGS}/{booking.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    booking.refresh_from_db()
    assert (booking.user, booking.comment) == (guest, "Changed")
    assert "Gunnar Gäst" in client.get(f"{BOOKINGS}/").content.decode()


# --- the services ----------------------------------------------------------------------------------------


def test_booking_create_keeps_whole_minutes_and_refuses_a_wrong_booking(org, other_org, plane, anna):
    booking = booking_create(
        object=plane, user=anna, start_at=at(2026, 11, 20, 9, 0, 59), end_at=at(2026, 11, 20, 10, 0, 1)
    )
    assert (booking.start_at, booking.end_at, booking.type, booking.is_primary) == (
        at(2026, 11, 20, 9, 0),
        at(2026, 11, 20, 10, 0),
        "PRIV",
        True,
    )

    outsider = MemberFactory(organization=other_org).user
    with pytest.raises(ServiceError) as refused:
        booking_create(
            object=plane,
            user=outsider,
            student=anna,
            start_at=at(2026, 11, 20, 9, 0),
            end_at=at(2026, 11, 20, 9, 0, 30),
        )
    assert [(problem.field, problem.code) for problem in refused.value.errors] == [("end_at", 10006), ("user", 10006)]
    assert Booking.objects.count() == 1


def test_a_member_of_a_club_the_object_is_shared_with_may_book_it(plane):
    guest_club = OrganizationFactory()
    ObjectShareFactory(object=plane, organization=guest_club)
    guest = MemberFactory(organization=guest_club).user

    booking = booking_create(object=plane, user=guest, start_at=at(2026, 11, 20, 9, 0), end_at=at(2026, 11, 20, 10, 0))
    assert booking.user == guest


def test_booking_update_saves_only_what_changed_and_checks_the_result(plane, anna, erik):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0), user=anna)

    with pytest.raises(ServiceError):
        booking_update(booking=booking, start_at=at(2026, 11, 20, 10, 0))
    with pytest.raises(TypeError):
        booking_update(booking=booking, created_at=at(2026, 1, 1))
    updated = booking_update(booking=booking, student=erik, end_at=at(2026, 11, 20, 11, 0), comment=None)

    booking.refresh_from_db()
    assert (booking.student, booking.end_at, booking.comment) == (erik, at(2026, 11, 20, 11, 0), "")
    assert updated.pk == booking.pk


def test_booking_delete_twice_is_not_found(plane):
    booking = book(plane, at(2026, 11, 20, 9, 0), at(2026, 11, 20, 10, 0))
    booking_delete(booking=booking)
    with pytest.raises(ServiceError) as refused:
        booking_delete(booking=booking)
    assert refused.value.code == 10100
