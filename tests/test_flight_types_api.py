"""GET /flight-types and GET /users/{id}/approved-flight-types (Main API v5)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import MemberFactory, UserFactory
from tests.factories_operations import (
    EquipmentFactory,
    FlightApprovalFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
)
from tests.helpers import assert_problem


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__first_name="Anna")


def approved(api, member, **params):
    response = api.get(f"/users/{member.user_id}/approved-flight-types", params)
    assert response.status_code == 200, response.content
    return response.json()


# --- flight types ------------------------------------------------------------------------------------------


def test_flight_types_are_sorted_by_name_in_any_case_then_id(api, org, other_org):
    school = FlightTypeFactory(organization=org, name="school")
    private = FlightTypeFactory(organization=org, name="Private")
    aerobatics = FlightTypeFactory(organization=org, name="Aerobatics")
    school_twin = FlightTypeFactory(organization=org, name="School")
    FlightTypeFactory(organization=other_org, name="Bergen")

    body = api.get("/flight-types", {"include_total": "true"}).json()

    assert body["data"] == [
        {"id": aerobatics.pk, "name": "Aerobatics"},
        {"id": private.pk, "name": "Private"},
        {"id": school.pk, "name": "school"},
        {"id": school_twin.pk, "name": "School"},
    ]
    assert body["meta"]["total"] == 4
    page = api.get("/flight-types", {"limit": 1, "offset": 1}).json()
    assert page["data"] == [{"id": private.pk, "name": "Private"}]
    assert page["meta"]["has_more"] is True


def test_flight_types_with_the_flight_log_off_are_409_10200(api, org):
    FlightTypeFactory(organization=org)
    org.uses_flight_log = False
    org.save()

    body = assert_problem(api.get("/flight-types"), 409, 10200)

    assert "errors" not in body
    # The call's own problems come first: an unknown parameter is still 400.
    assert_problem(api.get("/flight-types", {"colour": "red"}), 400, 10007)


def test_another_organizations_flight_log_setting_does_not_matter(api, org, other_org):
    FlightTypeFactory(organization=org, name="Private")
    other_org.uses_flight_log = False
    other_org.save()

    assert [item["name"] for item in api.get("/flight-types").json()["data"]] == ["Private"]


# --- approved flight types ---------------------------------------------------------------------------------


def test_approved_flight_types_list_the_users_objects_with_their_types(api, org, member):
    school = FlightTypeFactory(organization=org, name="school")
    private = FlightTypeFactory(organization=org, name="Private")
    towing = FlightTypeFactory(organization=org, name="Towing")
    kbt = ObjectFactory(organization=org, registration="SE-KBT")
    abc = ObjectFactory(organization=org, registration="SE-ABC")
    headset = EquipmentFactory(organization=org, registration="Headset A")
    FlightApprovalFactory(organization=org, member=member, object=kbt).flight_types.add(school, private)
    FlightApprovalFactory(organization=org, member=member, object=headset)
    FlightApprovalFactory(organization=org, member=member, object=abc).flight_types.add(towing)
    # Another member's approval is not the user's.
    FlightApprovalFactory(organization=org, object=kbt).flight_types.add(towing)

    body = approved(api, member, include_total="true")

    assert body["data"] == [
        {"object": {"id": abc.pk, "registration": "SE-ABC"}, "flight_types": [{"id": towing.pk, "name": "Towing"}]},
        {
            "object": {"id": kbt.pk, "registration": "SE-KBT"},
            "flight_types": [{"id": private.pk, "name": "Private"}, {"id": school.pk, "name": "school"}],
        },
        {"object": {"id": headset.pk, "registration": "Headset A"}, "flight_types": []},
    ]
    assert body["meta"]["total"] == 3
    page = approved(api, member, limit=1, offset=1)
    assert [item["object"]["id"] for item in page["data"]] == [kbt.pk]
    assert page["meta"]["has_more"] is True
    assert list(approved(api, member, exclude="flight_types")["data"][0]) == ["object"]


def test_a_user_without_approvals_has_an_empty_list(api, member):
    assert approved(api, member)["data"] == []


def test_an_unknown_user_is_404_10100(api, org, other_org):
    stranger = MemberFactory(organization=other_org)
    FlightApprovalFactory(organization=other_org, member=stranger)
    login_without_member = UserFactory()

    for user_id in (stranger.user_id, login_without_member.pk, 999_999):
        assert_problem(api.get(f"/users/{user_id}/approved-flight-types"), 404, 10100)


def test_approved_flight_types_with_the_flight_log_off_are_409_10200(api, org, member):
    FlightApprovalFactory(organization=org, member=member)
    org.uses_flight_log = False
    org.save()

    assert_problem(api.get(f"/users/{member.user_id}/approved-flight-types"), 409, 10200)
    # The flight log being off is the organization's answer, before the user is looked up.
    assert_problem(api.get("/users/999999/approved-flight-types"), 409, 10200)


def test_an_approval_on_an_object_no_longer_shared_is_not_listed(api, org, other_org, member):
    theirs = ObjectFactory(organization=other_org, registration="LN-ABC")
    share = ObjectShareFactory(object=theirs, organization=org)
    FlightApprovalFactory(organization=org, member=member, object=theirs)

    assert [item["object"]["id"] for item in approved(api, member)["data"]] == [theirs.pk]
    share.delete()
    assert approved(api, member)["data"] == []


def test_approved_flight_types_cost_the_same_queries_at_limit_1_and_500(
    api, org, member, django_assert_max_num_queries
):
    types = [FlightTypeFactory(organization=org) for _ in range(3)]
    for _ in range(12):
        FlightApprovalFactory(organization=org, member=member).flight_types.add(*types)
    api.get("/token")
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(approved(api, member, limit=1)["data"]) == 1
    with django_assert_max_num_queries(len(at_limit_1)):
        body = approved(api, member, limit=500)
    assert body["meta"]["count"] == 12
    assert all(len(item["flight_types"]) == 3 for item in body["data"])
