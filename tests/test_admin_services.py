"""The organization website writes through the services: each page that saves through services declares them
(ServiceSavedAdmin.create_service / update_service), and its add and change call them; sharing, flight
approvals, object totals and deleting an organization are the services' rules, not the pages'."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib import admin as django_admin

from accounts import admin as accounts_admin
from accounts.models import ExpiryDateType, Member, Organization
from adminkit.service_admin import ServiceSavedAdmin
from apicore.errors import ServiceError
from bookings.models import Booking
from economy.models import Transaction
from flightlog.models import FlightApproval, FlightLogEntry
from flightlog.services import flight_approval_create, flight_approval_update
from objects_app import admin as objects_admin
from objects_app import services as object_services
from objects_app.models import BookableObject, ObjectShare, Remark
from tests.admin_fixtures import ADMIN, form_data, make_superuser, page_errors, web
from tests.factories import (
    MemberFactory,
    MembershipFactory,
    OrganizationFactory,
)
from tests.factories_operations import (
    BookingFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
)
from webhooks.models import Delivery
from webhooks.services import webhook_create

UTC = dt.UTC
ADDRESS = "http://127.0.0.1:9/webhook"


@pytest.fixture
def client(admin):
    return web(admin)


@pytest.fixture
def plane(org):
    return ObjectFactory(organization=org, registration="SE-KBA")


@pytest.fixture
def anna(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg", member_number="12")


def registered(model):
    return type(django_admin.site._registry[model])


def spy(monkeypatch, page, name: str) -> list[dict]:
    """Record each call of the page's declared service (create_service / update_service), then make it."""
    real = getattr(page, name)
    assert callable(real), f"{page.__name__} declares no {name}"
    calls: list[dict] = []

    def recording(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(page, name, recording)
    return calls


def post_page(client, url: str, **values):
    """Post an add or change page as a browser sends it back, with `values` changed."""
    data = form_data(client.get(url))
    data.update(values)
    return client.post(url, data)


def saved(response) -> None:
    assert response.status_code == 302, page_errors(response)


# --- every page declares its services -------------------------------------------------------------------------


def test_every_page_saved_through_services_declares_the_service_that_creates_it():
    pages = [page for page in django_admin.site._registry.values() if isinstance(page, ServiceSavedAdmin)]
    assert {type(page).__name__ for page in pages} >= {
        "BookingAdmin",
        "BookableObjectAdmin",
        "RemarkAdmin",
        "FlightLogEntryAdmin",
        "FlightApprovalAdmin",
        "MemberAdmin",
        "ExpiryDateTypeAdmin",
        "TransactionAdmin",
    }
    for page in pages:
        assert type(page).create_service is not None, type(page).__name__
        # No page writes its model itself: save_model is the shared one.
        assert "save_model" not in type(page).__dict__, type(page).__name__


# --- add and change of each model go through its services --------------------------------------------------------


def test_a_booking_is_changed_through_its_update_service(client, monkeypatch, plane, anna):
    booking = BookingFactory(
        organization=plane.organization,
        object=plane,
        user=anna.user,
        start_at=dt.datetime(2026, 11, 26, 9, 0, tzinfo=UTC),
        end_at=dt.datetime(2026, 11, 26, 10, 0, tzinfo=UTC),
    )
    page = registered(Booking)
    calls = spy(monkeypatch, page, "update_service")

    url = f"{ADMIN}/bookings/booking/{booking.pk}/change/"
    data = form_data(client.get(url))
    for name in ("start_at", "end_at"):
        data.pop(name, None)
    data.update(
        {
            "start_at_0": "2026-11-26",
            "start_at_1": "10:00",
            "end_at_0": "2026-11-26",
            "end_at_1": "11:00",
            "comment": "Circuits",
        }
    )
    saved(client.post(url, data))

    assert [(call["booking"].pk, call.get("comment")) for call in calls] == [(booking.pk, "Circuits")]
    booking.refresh_from_db()
    assert booking.comment == "Circuits"


def test_an_object_is_added_and_its_totals_set_through_the_services(client, org, monkeypatch):
    page = registered(BookableObject)
    created, updated = spy(monkeypatch, page, "create_service"), spy(monkeypatch, page, "update_service")

    saved(
        post_page(
            client,
            f"{ADMIN}/objects_app/bookableobject/add/",
            registration="SE-NEW",
            category="0",
            landings="12",
        )
    )
    obj = BookableObject.objects.get(registration="SE-NEW")
    assert [(call["organization"], call["registration"], call["landings"]) for call in created] == [(org, "SE-NEW", 12)]
    assert obj.landings == 12

    url = f"{ADMIN}/objects_app/bookableobject/{obj.pk}/change/"
    response = client.get(url)
    data = form_data(response)
    form = response.context["adminform"].form
    for name in ("airborne_minutes", "block_minutes", "tach_hours", "landings"):
        data[form.add_initial_prefix(name)] = str(form[name].value())
    # A flight logged while the page is open: the administrator's change moves the total by its difference.
    BookableObject.objects.filter(pk=obj.pk).update(landings=13)
    data.update({"landings": "20", "comment": "Overhauled"})
    saved(client.post(url, data))

    assert [(call["object"].pk, call["seen_totals"], call["landings"], call["comment"]) for call in updated] == [
        (obj.pk, {"landings": 12}, 20, "Overhauled")
    ]
    obj.refresh_from_db()
    assert (obj.landings, obj.comment) == (21, "Overhauled")


def test_object_update_moves_a_total_by_the_difference_the_caller_saw(plane):
    BookableObject.objects.filter(pk=plane.pk).update(airborne_minutes=100)

    changed = object_services.object_update(
        object=plane, seen_totals={"airborne_minutes": 60}, airborne_minutes=90, type_name="Skyhawk"
    )

    assert (changed.airborne_minutes, changed.type_name) == (130, "Skyhawk")
    assert object_services.object_update(object=changed, airborne_minutes=200).airborne_minutes == 200


def test_sharing_on_the_objects_page_goes_through_object_share_and_object_unshare(
    client, org, other_org, plane, monkeypatch
):
    calls = []
    for name in ("object_share", "object_unshare"):
        real = getattr(object_services, name)
        monkeypatch.setattr(
            object_services, name, lambda real=real, name=name, **kwargs: calls.append(name) or real(**kwargs)
        )
    url = f"{ADMIN}/objects_app/bookableobject/{plane.pk}/change/"

    saved(post_page(client, url, **{"shares-TOTAL_FORMS": "1", "shares-0-organization": str(other_org.pk)}))
    assert ObjectShare.objects.get(object=plane).organization == other_org

    saved(post_page(client, url, **{"shares-0-DELETE": "on"}))
    assert not ObjectShare.objects.filter(object=plane).exists()
    assert calls == ["object_share", "object_unshare"]


def test_a_share_changed_to_another_organization_is_stopped_and_started(client, org, other_org, plane):
    third = OrganizationFactory(name="Tredje klubben")
    ObjectShareFactory(object=plane, organization=other_org)

    response = post_page(
        client, f"{ADMIN}/objects_app/bookableobject/{plane.pk}/change/", **{"shares-0-organization": str(third.pk)}
    )

    saved(response)
    assert list(ObjectShare.objects.filter(object=plane).values_list("organization", flat=True)) == [third.pk]


def test_object_share_refuses_the_objects_own_organization(org, plane, other_org):
    with pytest.raises(ServiceError) as refused:
        object_services.object_share(object=plane, organization=org)
    assert [(problem.field, problem.code) for problem in refused.value.errors] == [("organization", 10006)]

    object_services.object_share(object=plane, organization=other_org)
    object_services.object_share(object=plane, organization=other_org)  # twice is once
    assert ObjectShare.objects.filter(object=plane).count() == 1


def test_a_flight_approval_is_added_and_changed_through_its_services(client, org, plane, anna, monkeypatch):
    school, towing = FlightTypeFactory(organization=org, name="School"), FlightTypeFactory(organization=org, name="Tow")
    page = registered(FlightApproval)
    created, updated = spy(monkeypatch, page, "create_service"), spy(monkeypatch, page, "update_service")

    saved(
        client.post(
            f"{ADMIN}/flightlog/flightapproval/add/",
            {"member": anna.pk, "object": plane.pk, "flight_types": [school.pk]},
        )
    )
    approval = FlightApproval.objects.get(member=anna)
    assert [(call["member"], call["object"], list(call["flight_types"])) for call in created] == [
        (anna, plane, [school])
    ]

    saved(post_page(client, f"{ADMIN}/flightlog/flightapproval/{approval.pk}/change/", flight_types=[str(towing.pk)]))
    assert [(call["approval"].pk, list(call["flight_types"])) for call in updated] == [(approval.pk, [towing])]
    assert list(approval.flight_types.all()) == [towing]


def test_the_flight_approval_service_refuses_an_object_the_members_club_neither_owns_nor_shares(org, other_org, plane):
    stranger = MemberFactory(organization=other_org)
    their_type = FlightTypeFactory(organization=other_org)

    with pytest.raises(ServiceError) as refused:
        flight_approval_create(member=stranger, object=plane, flight_types=[their_type])
    assert sorted(problem.field for problem in refused.value.errors) == ["flight_types", "object"]

    ObjectShareFactory(object=plane, organization=other_org)
    with pytest.raises(ServiceError) as refused:
        flight_approval_create(member=stranger, object=plane, flight_types=[their_type])
    assert [problem.field for problem in refused.value.errors] == ["flight_types"]
    approval = flight_approval_create(member=stranger, object=plane)
    with pytest.raises(ServiceError) as refused:
        flight_approval_create(member=stranger, object=plane)
    assert refused.value.code == 10030
    assert flight_approval_update(approval=approval, flight_types=[]).pk == approval.pk


def test_support_sees_the_services_refusal_of_an_approval_on_the_page(org, other_org, plane):
    stranger = MemberFactory(organization=other_org)

    response = web(make_superuser()).post(
        f"{ADMIN}/flightlog/flightapproval/add/", {"member": stranger.pk, "object": plane.pk}
    )

    assert page_errors(response)["object"] == ["The member's organization neither owns nor shares this object."]
    assert not FlightApproval.objects.exists()


def test_a_flight_is_logged_and_changed_through_its_services(client, org, plane, anna, monkeypatch):
    from tests.test_admin_flightlog import flight_form

    page = registered(FlightLogEntry)
    created, updated = spy(monkeypatch, page, "create_service"), spy(monkeypatch, page, "update_service")

    saved(client.post(f"{ADMIN}/flightlog/flightlogentry/add/", flight_form(plane, anna)))
    flight = FlightLogEntry.objects.get()
    assert [call["object"] for call in created] == [plane]

    saved(post_page(client, f"{ADMIN}/flightlog/flightlogentry/{flight.pk}/change/", comment="Touch and go"))
    assert [(call["flight"].pk, call["comment"]) for call in updated] == [(flight.pk, "Touch and go")]


def test_a_remark_is_written_and_acknowledged_through_its_services(client, admin, plane, monkeypatch):
    page = registered(Remark)
    created = spy(monkeypatch, page, "create_service")

    saved(
        post_page(
            client, f"{ADMIN}/objects_app/remark/add/", object=str(plane.pk), description="Flat tyre", category="2"
        )
    )
    assert [(call["object"], call["by"]) for call in created] == [(plane, admin)]

    remark = RemarkFactory(object=plane)
    steps = []
    real, label = objects_admin.STEPS["_acknowledge"]
    recording = lambda **kwargs: steps.append(kwargs) or real(**kwargs)  # noqa: E731
    monkeypatch.setitem(objects_admin.STEPS, "_acknowledge", (recording, label))
    saved(post_page(client, f"{ADMIN}/objects_app/remark/{remark.pk}/change/", _acknowledge="pressed"))
    assert [(call["remark"].pk, call["by"]) for call in steps] == [(remark.pk, admin)]


def test_an_expiry_date_type_is_made_and_changed_through_its_services(client, org, monkeypatch):
    page = registered(ExpiryDateType)
    created, updated = spy(monkeypatch, page, "create_service"), spy(monkeypatch, page, "update_service")

    saved(
        client.post(
            f"{ADMIN}/accounts/expirydatetype/add/",
            {"name": "Medical", "reminders_days_before": "30", "booking_excluded_object_ids": []},
        )
    )
    medical = ExpiryDateType.objects.get(name="Medical")
    assert [(call["organization"], call["name"]) for call in created] == [(org, "Medical")]

    saved(post_page(client, f"{ADMIN}/accounts/expirydatetype/{medical.pk}/change/", booking_required="on"))
    assert [(call["expiry_type"].pk, call["booking_required"]) for call in updated] == [(medical.pk, True)]


def test_a_member_is_added_and_changed_through_its_services(client, org, monkeypatch):
    senior = MembershipFactory(organization=org, name="Senior")
    page = registered(Member)
    created, updated = spy(monkeypatch, page, "create_service"), spy(monkeypatch, page, "update_service")

    saved(
        post_page(
            client,
            f"{ADMIN}/accounts/member/add/",
            username=f"{org.pk}-anna",
            first_name="Anna",
            last_name="Berg",
            membership=str(senior.pk),
        )
    )
    member = Member.objects.get(user__username=f"{org.pk}-anna")
    assert [(call["organization"], call["username"]) for call in created] == [(org, f"{org.pk}-anna")]

    saved(post_page(client, f"{ADMIN}/accounts/member/{member.pk}/change/", first_name="Annika"))
    assert [(call["member"].pk, call["first_name"]) for call in updated] == [(member.pk, "Annika")]


def test_a_transaction_is_added_through_its_service(client, org, anna, monkeypatch):
    page = registered(Transaction)
    created = spy(monkeypatch, page, "create_service")

    response = client.post(
        f"{ADMIN}/economy/transaction/add/",
        {"member": anna.pk, "date": "2026-11-20", "amount": "-100.00", "comment": "Fuel"},
    )

    saved(response)
    assert [(call["organization"], call["amount"]) for call in created] == [(org, Decimal("-100.00"))]
    assert Transaction.objects.get().amount == Decimal("-100.00")


# --- deleting an organization --------------------------------------------------------------------------------------


def test_support_deletes_an_organization_through_organization_delete(org, plane, anna, monkeypatch, frozen_time):
    sharing = OrganizationFactory()
    ObjectShareFactory(object=plane, organization=sharing)
    hook, _token, _key = webhook_create(organization=sharing, url=ADDRESS)
    booking = BookingFactory(
        organization=org,
        object=plane,
        user=anna.user,
        start_at=dt.datetime(2026, 11, 26, 9, 0, tzinfo=UTC),
        end_at=dt.datetime(2026, 11, 26, 10, 0, tzinfo=UTC),
    )
    calls = []
    real = accounts_admin.organization_delete
    monkeypatch.setattr(accounts_admin, "organization_delete", lambda **kwargs: calls.append(kwargs) or real(**kwargs))

    reply = web(make_superuser()).post(f"{ADMIN}/accounts/organization/{org.pk}/delete/", {"post": "yes"})

    assert reply.status_code == 302
    assert [call["organization"].pk for call in calls] == [org.pk]
    assert not Organization.objects.filter(pk=org.pk).exists()
    assert list(Delivery.objects.filter(webhook=hook).values_list("event_type", "entity_id")) == [
        ("booking.delete", booking.pk)
    ]


def test_organization_delete_twice_is_not_found(org):
    from accounts.services import organization_delete

    organization_delete(organization=org)
    with pytest.raises(ServiceError) as refused:
        organization_delete(organization=org)
    assert refused.value.code == 10100
