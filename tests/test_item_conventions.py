"""One item by id (document 1, "Endpoints > Conventions"), through GET /memberships/{id} and /user-groups/{id}."""

import pytest

from tests.helpers import assert_problem, problem_fields, problem_messages


def test_item_reply_is_data_with_the_fields(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    response = api.get(group_endpoint.item_path(group.pk))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"data": {"id": group.pk, "name": "Senior"}}


def test_item_include_users_adds_the_block(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    member = group_endpoint.add_member(group, user__first_name="Anna", user__last_name="Berg", member_number="0042")

    data = api.get(group_endpoint.item_path(group.pk), {"include": "users"}).json()["data"]

    assert data == {
        "id": group.pk,
        "name": "Senior",
        "users": [{"id": member.user_id, "name": "Anna Berg", "member_number": "0042", "active": True}],
    }


def test_item_exclude_leaves_the_field_out(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    assert api.get(group_endpoint.item_path(group.pk), {"exclude": "name"}).json() == {"data": {"id": group.pk}}
    assert api.get(group_endpoint.item_path(group.pk), {"exclude": "id,name", "include": "users"}).json() == {
        "data": {"users": []}
    }


def test_item_include_of_a_block_not_offered_is_400(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    response = api.get(group_endpoint.item_path(group.pk), {"include": "phone"})

    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"include": 10005}


def test_item_exclude_of_an_unknown_name_is_400_and_lists_the_usable_names(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    response = api.get(group_endpoint.item_path(group.pk), {"exclude": "colour"})

    assert_problem(response, 400, 10005)
    message = problem_messages(response)["exclude"]
    assert "colour" in message and "id" in message and "name" in message


@pytest.mark.parametrize("name", ["limit", "offset", "include_total", "name", "id"])
def test_list_parameters_and_filters_are_unknown_on_an_item(api, org, group_endpoint, name):
    group = group_endpoint.make(org, "Senior")

    response = api.get(group_endpoint.item_path(group.pk), {name: "1"})

    assert_problem(response, 400, 10007)
    assert problem_fields(response) == {name: 10007}


def test_item_parameter_without_value_is_400(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    response = api.client.get(
        f"/main/v5{group_endpoint.item_path(group.pk)}?include=",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"include": 10005}


# --- 404 ------------------------------------------------------------------------------------------------


def test_unknown_id_is_404_10100(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    missing = group.pk + 1000

    assert_problem(api.get(group_endpoint.item_path(missing)), 404, 10100)


def test_id_of_a_deleted_item_is_404(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    group.delete()

    assert_problem(api.get(group_endpoint.item_path(group.pk)), 404, 10100)


@pytest.mark.parametrize("raw_id", ["abc", "1.5", "-1", "1e3", "%20", "0x10"])
def test_non_numeric_id_is_404(api, group_endpoint, raw_id):
    assert_problem(api.get(f"{group_endpoint.path}/{raw_id}"), 404, 10100)


@pytest.mark.parametrize("raw_id", ["0", "9223372036854775807", "9223372036854775808", "99999999999999999999999"])
def test_id_outside_the_database_range_is_404(api, group_endpoint, raw_id):
    assert_problem(api.get(f"{group_endpoint.path}/{raw_id}"), 404, 10100)


def test_item_path_with_more_segments_is_404(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")

    assert_problem(api.get(group_endpoint.item_path(group.pk) + "/users"), 404, 10100)


# --- 405 ------------------------------------------------------------------------------------------------


def test_delete_of_an_unknown_id_is_405_not_404(api, group_endpoint):
    response = api.delete(group_endpoint.item_path(1))

    assert_problem(response, 405, 10050)
    assert "GET" in response["Allow"]
