"""Objects and remarks on the organization website: scoping, sharing, maintenance items, the time summary's
totals, and remarks written, acknowledged, commented and closed through the services."""

import datetime as dt
from decimal import Decimal

import pytest

from objects_app import services
from objects_app.models import BookableObject, MaintenanceItem, ObjectShare, Remark, RemarkEvent
from objects_app.time_summary import object_totals_move
from tests.admin_fixtures import ADMIN, form_data, listed, make_superuser, page_errors, shown_messages, web
from tests.conftest import FROZEN_AT
from tests.factories import OrganizationFactory, UserFactory
from tests.factories_operations import (
    EquipmentFactory,
    MaintenanceItemFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkEventFactory,
    RemarkFactory,
)

OBJECTS = f"{ADMIN}/objects_app/bookableobject"
REMARKS = f"{ADMIN}/objects_app/remark"
UTC = dt.UTC


@pytest.fixture
def client(admin):
    return web(admin)


@pytest.fixture
def aircraft(org):
    return ObjectFactory(organization=org, registration="SE-KBT")


@pytest.fixture
def foreign(other_org):
    return ObjectFactory(organization=other_org, registration="LN-XYZ")


def object_page(client, obj) -> dict:
    """The page's form as a browser sends it back, the totals' hidden initial values included."""
    response = client.get(f"{OBJECTS}/{obj.pk}/change/")
    data = form_data(response)
    form = response.context["adminform"].form
    for name in ("airborne_minutes", "block_minutes", "tach_hours", "landings"):
        data[form.add_initial_prefix(name)] = str(form[name].value())
    return data


def remark_page(client, remark) -> dict:
    return form_data(client.get(f"{REMARKS}/{remark.pk}/change/"))


def step(client, remark, name: str, comment: str = ""):
    data = remark_page(client, remark)
    data.update({name: "pressed", "comment": comment})
    return client.post(f"{REMARKS}/{remark.pk}/change/", data)


# --- objects -------------------------------------------------------------------------------------------------


def test_the_object_list_shows_only_the_organizations_own_objects(client, org, other_org, aircraft, foreign):
    shared_with_us = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared_with_us, organization=org)
    headset = EquipmentFactory(organization=org, registration="Headset 1")

    assert listed(client.get(f"{OBJECTS}/")) == [aircraft, headset]


def test_the_list_shows_registration_category_type_active_and_status_as_text(client, org, aircraft, frozen_time):
    MaintenanceItemFactory(object=aircraft, due_date=dt.date(2026, 11, 1))
    room = ObjectFactory(organization=org, registration="Briefing", category=2, type_designator="", has_status=False)
    yellow = ObjectFactory(organization=org, registration="SE-YEL")
    RemarkFactory(object=yellow, category=1)

    html = client.get(f"{OBJECTS}/").content.decode()

    for text in ("SE-KBT", "Aircraft", "C172", "Premises", "Briefing", "Red", "Yellow", "No status"):
        assert text in html, text
    assert room.registration in html


def test_another_organizations_object_cannot_be_opened_or_changed(client, foreign):
    response = client.get(f"{OBJECTS}/{foreign.pk}/change/")
    assert response.status_code == 302  # "does not exist", back to the index
    client.post(f"{OBJECTS}/{foreign.pk}/change/", {"registration": "HACKED", "category": 0})
    foreign.refresh_from_db()
    assert foreign.registration == "LN-XYZ"
    assert client.get(f"{OBJECTS}/{foreign.pk}/delete/").status_code == 302
    assert BookableObject.objects.filter(pk=foreign.pk).exists()


def test_an_object_is_added_to_the_current_organization(client, org):
    data = form_data(client.get(f"{OBJECTS}/add/"))
    assert "organization" not in data
    data.update({"registration": "SE-NEW", "category": "0", "type_designator": "PA28"})

    response = client.post(f"{OBJECTS}/add/", data)

    assert response.status_code == 302, page_errors(response)
    assert BookableObject.objects.get(registration="SE-NEW").organization == org


def test_the_page_has_fieldsets_for_booking_disclaimer_and_time_summary(client, aircraft):
    html = client.get(f"{OBJECTS}/{aircraft.pk}/change/").content.decode()
    for title in ("Booking", "Disclaimer", "Time summary"):
        assert f">{title}<" in html, title


# --- sharing -------------------------------------------------------------------------------------------------


def test_sharing_offers_every_other_organization_by_name(client, org, other_org, aircraft):
    response = client.get(f"{OBJECTS}/{aircraft.pk}/change/")
    choices = response.context["inline_admin_formsets"][0].formset.empty_form.fields["organization"].queryset

    assert org not in choices
    assert other_org in choices
    assert "Bergen Flyklubb" in response.content.decode()


def test_an_object_is_shared_and_unshared_on_its_page(client, org, other_org, aircraft):
    data = object_page(client, aircraft)
    data.update({"shares-TOTAL_FORMS": "1", "shares-0-organization": str(other_org.pk)})

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    share = ObjectShare.objects.get(object=aircraft)
    assert share.organization == other_org

    data = object_page(client, aircraft)
    data["shares-0-DELETE"] = "on"
    assert client.post(f"{OBJECTS}/{aircraft.pk}/change/", data).status_code == 302
    assert not ObjectShare.objects.filter(object=aircraft).exists()


def test_an_object_is_never_shared_with_its_own_organization(client, org, aircraft):
    data = object_page(client, aircraft)
    data.update({"shares-TOTAL_FORMS": "1", "shares-0-organization": str(org.pk)})

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 200
    assert page_errors(response)["rows"][0]["organization"]
    assert not ObjectShare.objects.exists()


# --- maintenance items ---------------------------------------------------------------------------------------


def test_maintenance_items_are_rows_of_the_objects_page(client, aircraft):
    data = object_page(client, aircraft)
    data.update(
        {
            "maintenance_items-0-name": "100-hour",
            "maintenance_items-0-due_airborne": "150",
            "maintenance_items-0-hard_airborne": "160",
            "maintenance_items-0-warning_days": "0",
            "maintenance_items-0-warning_hours": "5",
        }
    )

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    item = MaintenanceItem.objects.get(object=aircraft)
    assert (item.name, item.due_airborne, item.hard_airborne, item.warning_hours) == (
        "100-hour",
        Decimal("150.00"),
        Decimal("160.00"),
        Decimal("5.00"),
    )


@pytest.mark.parametrize(
    ("limits", "field"),
    [({}, "due_date"), ({"due_airborne": "150", "hard_airborne": "149"}, "hard_airborne")],
)
def test_a_maintenance_item_needs_a_limit_and_sensible_hours(client, aircraft, limits, field):
    data = object_page(client, aircraft)
    data.update(
        {
            "maintenance_items-0-name": "Check",
            "maintenance_items-0-warning_days": "0",
            "maintenance_items-0-warning_hours": "0",
            **{f"maintenance_items-0-{name}": value for name, value in limits.items()},
        }
    )

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 200
    row_errors = [row for row in page_errors(response)["rows"] if row]
    assert field in row_errors[0]
    assert not MaintenanceItem.objects.exists()


# --- the time summary's totals -------------------------------------------------------------------------------


def test_the_totals_are_set_as_the_starting_totals(client, aircraft):
    data = object_page(client, aircraft)
    data.update({"airborne_minutes": "60000", "tach_hours": "1200.50", "landings": "3000"})

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    aircraft.refresh_from_db()
    assert (aircraft.airborne_minutes, aircraft.block_minutes, aircraft.tach_hours, aircraft.landings) == (
        60000,
        0,
        Decimal("1200.50"),
        3000,
    )


def test_a_flight_logged_while_the_page_is_open_stays_counted(client, aircraft):
    data = object_page(client, aircraft)
    object_totals_move(object_id=aircraft.pk, airborne_minutes=70, landings=1)  # a flight is logged meanwhile
    data.update({"airborne_minutes": "6000", "comment": "Engine overhauled"})

    response = client.post(f"{OBJECTS}/{aircraft.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    aircraft.refresh_from_db()
    assert (aircraft.airborne_minutes, aircraft.landings, aircraft.comment) == (6070, 1, "Engine overhauled")


# --- remarks -------------------------------------------------------------------------------------------------


def test_remarks_are_listed_newest_first_for_the_organizations_objects_only(client, org, other_org, aircraft, foreign):
    old = RemarkFactory(object=aircraft, created_at=dt.datetime(2026, 11, 1, tzinfo=UTC))
    new = RemarkFactory(object=aircraft, created_at=dt.datetime(2026, 11, 3, tzinfo=UTC))
    RemarkFactory(object=foreign)
    shared = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared, organization=org)
    RemarkFactory(object=shared)  # on an object shared with us: the owner handles it

    assert listed(client.get(f"{REMARKS}/")) == [new, old]


def test_the_list_shows_the_writer_by_name_and_the_time_in_the_organizations_zone(client, aircraft):
    writer = UserFactory(first_name="Anna", last_name="Berg", username="anna-login")
    # 23:30 UTC on 1 November is 00:30 on 2 November in Stockholm.
    RemarkFactory(object=aircraft, created_at=dt.datetime(2026, 11, 1, 23, 30, tzinfo=UTC), created_by=writer)

    html = client.get(f"{REMARKS}/").content.decode()

    assert "Anna Berg" in html
    assert "anna-login" not in html
    assert "Nov. 2, 2026, 12:30 a.m." in html
    assert "SE-KBT" in html


def test_another_organizations_remark_cannot_be_opened_or_moved(client, foreign):
    remark = RemarkFactory(object=foreign)

    assert client.get(f"{REMARKS}/{remark.pk}/change/").status_code == 302
    client.post(f"{REMARKS}/{remark.pk}/change/", {"_close": "pressed", "comment": ""})
    remark.refresh_from_db()
    assert remark.state == "open"
    assert not RemarkEvent.objects.exists()


def test_a_remark_is_written_through_the_service(client, admin, aircraft, frozen_time):
    data = form_data(client.get(f"{REMARKS}/add/"))
    data.update({"object": str(aircraft.pk), "description": "Left brake squeaks", "category": "2"})

    response = client.post(f"{REMARKS}/add/", data)

    assert response.status_code == 302, page_errors(response)
    remark = Remark.objects.get()
    assert (remark.object, remark.description, remark.category, remark.state) == (
        aircraft,
        "Left brake squeaks",
        2,
        "open",
    )
    assert (remark.created_by, remark.created_at) == (admin, FROZEN_AT)


def test_only_the_organizations_objects_are_offered_for_a_remark(client, aircraft, foreign):
    response = client.get(f"{REMARKS}/add/")
    choices = response.context["adminform"].form.fields["object"].queryset
    assert list(choices) == [aircraft]

    response = client.post(f"{REMARKS}/add/", {"object": str(foreign.pk), "description": "x", "category": "1"})
    assert "object" in page_errors(response)
    assert not Remark.objects.exists()


def test_acknowledge_comment_and_close_with_the_buttons(client, admin, aircraft):
    remark = RemarkFactory(object=aircraft)
    html = client.get(f"{REMARKS}/{remark.pk}/change/").content.decode()
    assert all(f'name="{name}"' in html for name in ("_acknowledge", "_comment", "_close"))

    response = step(client, remark, "_acknowledge")
    assert response.status_code == 302, page_errors(response)
    assert response["Location"] == f"{REMARKS}/{remark.pk}/change/"
    assert step(client, remark, "_comment", "Pads ordered").status_code == 302
    response = step(client, remark, "_close")
    assert response.status_code == 302

    remark.refresh_from_db()
    assert remark.state == "closed"
    assert list(remark.history.order_by("at", "id").values_list("action", "text", "by")) == [
        ("acknowledged", "", admin.pk),
        ("commented", "Pads ordered", admin.pk),
        ("closed", "", admin.pk),
    ]
    page = client.get(f"{REMARKS}/{remark.pk}/change/")
    assert "The remark was closed." in shown_messages(page)
    assert 'name="_close"' not in page.content.decode()


def test_saving_the_page_with_a_comment_written_adds_the_comment(client, admin, aircraft):
    remark = RemarkFactory(object=aircraft)

    response = step(client, remark, "_save", "Seen on the walk-around")

    assert response.status_code == 302, page_errors(response)
    assert list(remark.history.values_list("action", "text", "by")) == [
        ("commented", "Seen on the walk-around", admin.pk)
    ]
    assert step(client, remark, "_save").status_code == 302  # nothing written, nothing done
    assert remark.history.count() == 1


def test_a_comment_needs_text(client, aircraft):
    remark = RemarkFactory(object=aircraft)

    response = step(client, remark, "_comment", "   ")

    assert "comment" in page_errors(response)
    assert not remark.history.exists()


def test_a_closed_remark_takes_no_more_steps(client, aircraft):
    remark = RemarkFactory(object=aircraft, state="closed")
    data = remark_page(client, remark)

    for name in ("_acknowledge", "_comment", "_close"):
        response = client.post(f"{REMARKS}/{remark.pk}/change/", {**data, name: "pressed", "comment": "Late"})
        assert page_errors(response)[""], name
    assert not remark.history.exists()


def test_a_refusal_of_the_service_is_shown_on_the_page(client, admin, aircraft):
    remark = RemarkFactory(object=aircraft)
    data = remark_page(client, remark)
    services.remark_close(remark=remark, by=admin)  # closed by someone else after the page was opened

    response = client.post(f"{REMARKS}/{remark.pk}/change/", {**data, "_acknowledge": "pressed"})

    assert page_errors(response)[""]
    assert list(remark.history.values_list("action", flat=True)) == ["closed"]


def test_the_history_is_shown_read_only_with_names_and_local_times(client, aircraft):
    olle = UserFactory(first_name="Olle", last_name="Ek", username="olle-login")
    remark = RemarkFactory(object=aircraft)
    RemarkEventFactory(
        remark=remark,
        action="commented",
        text="Checked the pads",
        by=olle,
        at=dt.datetime(2026, 11, 2, 22, 15, tzinfo=UTC),
    )

    response = client.get(f"{REMARKS}/{remark.pk}/change/")
    html = response.content.decode()

    assert "Checked the pads" in html
    assert "Olle Ek" in html and "olle-login" not in html
    assert "Nov. 2, 2026, 11:15 p.m. · Commented · Olle Ek: Checked the pads" in html  # 22:15 UTC
    assert "history" not in response.context["adminform"].form.fields
    assert "description" not in response.context["adminform"].form.fields


def test_list_actions_acknowledge_and_close_through_the_services(client, admin, aircraft):
    first = RemarkFactory(object=aircraft)
    closed = RemarkFactory(object=aircraft, state="closed")

    response = client.post(
        f"{REMARKS}/",
        {"action": "acknowledge_selected", "_selected_action": [str(first.pk), str(closed.pk)]},
        follow=True,
    )

    first.refresh_from_db()
    assert first.state == "acknowledged"
    assert any("Not possible" in message for message in shown_messages(response))
    client.post(f"{REMARKS}/", {"action": "close_selected", "_selected_action": [str(first.pk)]})
    first.refresh_from_db()
    assert first.state == "closed"
    assert list(first.history.values_list("action", "by")) == [("acknowledged", admin.pk), ("closed", admin.pk)]


def test_an_administrator_does_not_delete_remarks(client, aircraft):
    remark = RemarkFactory(object=aircraft)
    assert client.get(f"{REMARKS}/{remark.pk}/delete/").status_code == 403
    assert Remark.objects.filter(pk=remark.pk).exists()


def test_a_superuser_sees_every_organizations_objects_and_remarks(aircraft, foreign):
    support = web(make_superuser())
    RemarkFactory(object=foreign)

    assert set(listed(support.get(f"{OBJECTS}/"))) == {aircraft, foreign}
    assert len(listed(support.get(f"{REMARKS}/"))) == 1


def test_an_administrator_of_another_club_sees_nothing_of_ours(aircraft):
    other = OrganizationFactory(name="Elsewhere")
    from tests.factories import make_admin

    stranger = web(make_admin(other))
    assert listed(stranger.get(f"{OBJECTS}/")) == []
    assert stranger.get(f"{OBJECTS}/{aircraft.pk}/change/").status_code == 302


# --- queries -------------------------------------------------------------------------------------------------


def test_the_lists_cost_the_same_queries_for_one_row_and_many(client, org, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first = ObjectFactory(organization=org)
    MaintenanceItemFactory(object=first)
    RemarkFactory(object=first)
    client.get(f"{OBJECTS}/")  # the session and the site's own lookups warm up outside the counts
    with CaptureQueriesContext(connection) as one_object:
        client.get(f"{OBJECTS}/")
    with CaptureQueriesContext(connection) as one_remark:
        client.get(f"{REMARKS}/")

    for _ in range(20):
        obj = ObjectFactory(organization=org)
        MaintenanceItemFactory(object=obj)
        RemarkFactory(object=obj, created_by=UserFactory())

    with django_assert_max_num_queries(len(one_object)):
        assert len(listed(client.get(f"{OBJECTS}/"))) == 21
    with django_assert_max_num_queries(len(one_remark)):
        assert len(listed(client.get(f"{REMARKS}/"))) == 21
