"""GET /memberships, /memberships/{id}, /user-groups, /user-groups/{id}: tenancy, block `users`, query count."""

import pytest

from tests.factories import MemberFactory, MembershipFactory, UserFactory, UserGroupFactory
from tests.helpers import assert_problem

# --- tenant separation ---------------------------------------------------------------------------------------


def test_another_organizations_items_are_not_found_by_search_or_counted(api, org, other_org, group_endpoint):
    group_endpoint.make(other_org, "Senior")

    body = api.get(group_endpoint.path, {"name": "Senior", "include_total": "true"}).json()

    assert body["data"] == []
    assert body["meta"]["total"] == 0


def test_another_organizations_item_is_404(api, other_api, org, other_org, group_endpoint):
    own = group_endpoint.make(org, "Senior")
    theirs = group_endpoint.make(other_org, "Senior")

    assert_problem(api.get(group_endpoint.item_path(theirs.pk)), 404, 10100)
    assert_problem(other_api.get(group_endpoint.item_path(own.pk)), 404, 10100)
    assert_problem(api.get(group_endpoint.item_path(theirs.pk), {"include": "users"}), 404, 10100)
    assert api.get(group_endpoint.item_path(own.pk)).status_code == 200


def test_memberships_and_user_groups_are_separate(api, org):
    membership = MembershipFactory(organization=org, name="Senior")

    assert api.get("/user-groups").json()["data"] == []
    assert_problem(api.get(f"/user-groups/{membership.pk}"), 404, 10100)

    membership.delete()
    group = UserGroupFactory(organization=org, name="Pilots")
    assert api.get("/memberships").json()["data"] == []
    assert_problem(api.get(f"/memberships/{group.pk}"), 404, 10100)


# --- block users -----------------------------------------------------------------------------------------------


def test_users_block_is_sorted_by_name_case_insensitively_then_id(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    names = [("erik", "Ek"), ("Anna", "Berg"), ("Erik", "Ek"), ("anna", "Ax"), ("Bo", "Ceder")]
    members = [group_endpoint.add_member(group, user__first_name=first, user__last_name=last) for first, last in names]
    by_name = sorted(members, key=lambda member: (member.user.name.lower(), member.user_id))

    users = api.get(group_endpoint.item_path(group.pk), {"include": "users"}).json()["data"]["users"]

    assert [user["id"] for user in users] == [member.user_id for member in by_name]
    assert [user["name"] for user in users] == ["anna Ax", "Anna Berg", "Bo Ceder", "erik Ek", "Erik Ek"]


def test_users_block_items_have_id_name_member_number_as_text_and_active(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    active = group_endpoint.add_member(
        group, user__first_name="Anna", user__last_name_particle="von", user__last_name="Berg", member_number="007"
    )
    inactive = group_endpoint.add_member(
        group, user__first_name="Bo", user__last_name="Ek", member_number="12", active=False
    )

    users = api.get(group_endpoint.item_path(group.pk), {"include": "users"}).json()["data"]["users"]

    assert users == [
        {"id": active.user_id, "name": "Anna von Berg", "member_number": "007", "active": True},
        {"id": inactive.user_id, "name": "Bo Ek", "member_number": "12", "active": False},
    ]


def test_users_block_holds_only_the_items_own_members(api, org, group_endpoint):
    senior = group_endpoint.make(org, "Senior")
    junior = group_endpoint.make(org, "Junior")
    in_senior = group_endpoint.add_member(senior, user__first_name="Anna", user__last_name="Berg")
    in_junior = group_endpoint.add_member(junior, user__first_name="Bo", user__last_name="Ek")
    MemberFactory(organization=org)  # in neither

    data = {item["name"]: item["users"] for item in api.get(group_endpoint.path, {"include": "users"}).json()["data"]}

    assert [user["id"] for user in data["Senior"]] == [in_senior.user_id]
    assert [user["id"] for user in data["Junior"]] == [in_junior.user_id]


def test_users_block_shows_a_shared_login_with_this_organizations_member_record(api, org, other_org, group_endpoint):
    # One login, a member of both organizations, in an item of each.
    user = UserFactory(first_name="Anna", last_name="Berg")
    own = group_endpoint.make(org, "Senior")
    theirs = group_endpoint.make(other_org, "Senior")
    group_endpoint.add_member(own, user=user, member_number="100", active=True)
    group_endpoint.add_member(theirs, user=user, member_number="900", active=False)

    users = api.get(group_endpoint.item_path(own.pk), {"include": "users"}).json()["data"]["users"]

    assert users == [{"id": user.pk, "name": "Anna Berg", "member_number": "100", "active": True}]


def test_users_of_another_organization_never_appear_in_the_block(api, org, other_org, group_endpoint):
    # Even a member record of another organization that points at this organization's item stays out.
    group = group_endpoint.make(org, "Senior")
    own = group_endpoint.add_member(group, user__first_name="Anna", user__last_name="Berg")
    group_endpoint.add_member(group, organization=other_org, user__first_name="Aaron", user__last_name="Aa")

    listed = api.get(group_endpoint.path, {"include": "users"}).json()["data"][0]["users"]
    fetched = api.get(group_endpoint.item_path(group.pk), {"include": "users"}).json()["data"]["users"]

    assert [user["id"] for user in listed] == [own.user_id]
    assert [user["id"] for user in fetched] == [own.user_id]


def test_users_block_is_an_empty_list_when_the_item_has_no_members(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    assert api.get(group_endpoint.item_path(group.pk), {"include": "users"}).json()["data"]["users"] == []


def test_user_in_several_user_groups_appears_in_each(api, org):
    pilots = UserGroupFactory(organization=org, name="Pilots")
    board = UserGroupFactory(organization=org, name="Board")
    member = MemberFactory(organization=org)
    member.user_groups.add(pilots, board)

    data = api.get("/user-groups", {"include": "users"}).json()["data"]

    assert [(item["name"], [user["id"] for user in item["users"]]) for item in data] == [
        ("Board", [member.user_id]),
        ("Pilots", [member.user_id]),
    ]


# --- fixed number of queries --------------------------------------------------------------------------------

# 1 for the token, 2 for the page of items (its keys, then its rows), 1 for the prefetch of the members with
# their logins (reads run in autocommit: no transaction statements).
LIST_WITH_USERS_QUERIES = 1 + 2 + 1


@pytest.mark.parametrize("limit", [1, 500])
def test_list_with_users_costs_a_fixed_number_of_queries(
    api, org, group_endpoint, django_assert_max_num_queries, limit
):
    groups = [group_endpoint.make(org, f"Group {index:02}") for index in range(30)]
    for index in range(60):
        group_endpoint.add_member(groups[index % 30])
    api.access_token  # noqa: B018 - the token is fetched before counting

    with django_assert_max_num_queries(LIST_WITH_USERS_QUERIES):
        response = api.get(group_endpoint.path, {"include": "users", "limit": limit})

    assert response.status_code == 200
    data = response.json()["data"]
    assert len(data) == min(limit, 30)
    assert sum(len(item["users"]) for item in data) == (2 if limit == 1 else 60)


def test_include_total_costs_one_query_more(api, org, group_endpoint, django_assert_max_num_queries):
    for index in range(30):
        group_endpoint.add_member(group_endpoint.make(org, f"Group {index:02}"))
    api.access_token  # noqa: B018

    with django_assert_max_num_queries(LIST_WITH_USERS_QUERIES + 1):
        response = api.get(group_endpoint.path, {"include": "users", "include_total": "true"})

    assert response.json()["meta"]["total"] == 30


def test_item_with_users_costs_a_fixed_number_of_queries(api, org, group_endpoint, django_assert_max_num_queries):
    group = group_endpoint.make(org, "Senior")
    for _ in range(20):
        group_endpoint.add_member(group)
    api.access_token  # noqa: B018

    with django_assert_max_num_queries(LIST_WITH_USERS_QUERIES):
        response = api.get(group_endpoint.item_path(group.pk), {"include": "users"})

    assert len(response.json()["data"]["users"]) == 20
