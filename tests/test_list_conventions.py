"""List parameters and list replies (document 1, "List parameters"), through GET /memberships and /user-groups."""

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers import assert_problem, problem_fields, problem_messages

# --- reply shape and paging --------------------------------------------------------------------------


def test_list_reply_has_data_meta_and_links_with_defaults(api, org, group_endpoint):
    for name in ("Senior", "Junior", "Family"):
        group_endpoint.make(org, name)

    response = api.get(group_endpoint.path)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"data", "meta", "links"}
    assert body["meta"] == {"count": 3, "limit": 100, "offset": 0, "has_more": False}
    assert body["links"] == {"next": None}
    assert [item["name"] for item in body["data"]] == ["Family", "Junior", "Senior"]
    assert all(set(item) == {"id", "name"} for item in body["data"])


def test_empty_list_is_an_empty_array(api, group_endpoint):
    body = api.get(group_endpoint.path).json()
    assert body["data"] == []
    assert body["meta"] == {"count": 0, "limit": 100, "offset": 0, "has_more": False}
    assert body["links"]["next"] is None


def test_default_limit_is_100(api, org, group_endpoint):
    group_endpoint.factory.create_batch(101, organization=org)

    body = api.get(group_endpoint.path).json()

    assert body["meta"] == {"count": 100, "limit": 100, "offset": 0, "has_more": True}
    assert len(body["data"]) == 100
    assert body["links"]["next"] is not None


def test_limit_500_gives_up_to_500_items(api, org, group_endpoint):
    group_endpoint.factory.create_batch(501, organization=org)

    body = api.get(group_endpoint.path, {"limit": 500}).json()

    assert body["meta"]["count"] == 500
    assert body["meta"]["has_more"] is True
    assert len(body["data"]) == 500


@pytest.mark.parametrize("value", ["0", "501", "-1", "abc", "1.5", "+5", " 5", "1e2"])
def test_limit_outside_1_to_500_or_not_a_number_is_400(api, group_endpoint, value):
    response = api.get(group_endpoint.path, {"limit": value})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"limit": 10005}


@pytest.mark.parametrize("value", ["-1", "abc", "1.0"])
def test_offset_must_be_a_whole_number_not_below_0(api, group_endpoint, value):
    response = api.get(group_endpoint.path, {"offset": value})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"offset": 10005}


def test_limit_and_offset_select_a_page_in_the_fixed_order(api, org, group_endpoint):
    names = [f"Group {letter}" for letter in "ABCDE"]
    for name in reversed(names):
        group_endpoint.make(org, name)

    body = api.get(group_endpoint.path, {"limit": 2, "offset": 1}).json()

    assert [item["name"] for item in body["data"]] == names[1:3]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 1, "has_more": True}


def test_offset_past_the_end_gives_an_empty_page(api, org, group_endpoint):
    group_endpoint.make(org, "Senior")

    body = api.get(group_endpoint.path, {"offset": 5}).json()

    assert body["data"] == []
    assert body["meta"] == {"count": 0, "limit": 100, "offset": 5, "has_more": False}
    assert body["links"]["next"] is None


def test_exactly_a_full_last_page_has_no_next(api, org, group_endpoint):
    for name in ("A", "B", "C", "D"):
        group_endpoint.make(org, name)

    body = api.get(group_endpoint.path, {"limit": 2, "offset": 2}).json()

    assert body["meta"] == {"count": 2, "limit": 2, "offset": 2, "has_more": False}
    assert body["links"]["next"] is None


def test_links_next_is_absolute_https_and_keeps_the_other_parameters(api, org, group_endpoint):
    for name in ("Sa", "Sb", "Sc", "Sd", "Other"):
        group_endpoint.make(org, name)

    params = {"name": "S*", "limit": 2, "include": "users", "exclude": "name", "include_total": "true"}
    body = api.get(group_endpoint.path, params).json()

    next_url = urlsplit(body["links"]["next"])
    assert next_url.scheme == "https"
    assert next_url.netloc == "testserver"
    assert next_url.path == f"/main/v5{group_endpoint.path}"
    assert parse_qs(next_url.query) == {
        "name": ["S*"],
        "limit": ["2"],
        "include": ["users"],
        "exclude": ["name"],
        "include_total": ["true"],
        "offset": ["2"],
    }


def test_following_links_next_walks_every_item_once_and_ends_with_null(api, org, group_endpoint):
    for index in range(7):
        group_endpoint.make(org, f"Group {index}")
    expected = api.get(group_endpoint.path).json()["data"]

    seen, pages = [], 0
    response = api.get(group_endpoint.path, {"limit": 3})
    while True:
        body = response.json()
        seen += body["data"]
        pages += 1
        if body["links"]["next"] is None:
            assert body["meta"]["has_more"] is False
            break
        assert body["meta"]["has_more"] is True
        url = urlsplit(body["links"]["next"])
        response = api.client.get(
            f"{url.path}?{url.query}", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}"
        )
        assert response.status_code == 200

    assert pages == 3
    assert seen == expected


# --- include_total and bool parameters -------------------------------------------------------------------


def test_include_total_true_adds_the_count_of_all_matching_items(api, org, group_endpoint):
    for name in ("Senior", "Sen", "Junior", "Student"):
        group_endpoint.make(org, name)

    body = api.get(group_endpoint.path, {"include_total": "true", "limit": 1, "name": "S*"}).json()

    assert body["meta"] == {"count": 1, "limit": 1, "offset": 0, "has_more": True, "total": 3}


def test_total_is_absent_unless_include_total_is_true(api, org, group_endpoint):
    group_endpoint.make(org, "Senior")

    assert "total" not in api.get(group_endpoint.path).json()["meta"]
    assert "total" not in api.get(group_endpoint.path, {"include_total": "false"}).json()["meta"]


@pytest.mark.parametrize("value", ["1", "0", "True", "yes", "TRUE"])
def test_bool_parameter_takes_only_true_or_false(api, group_endpoint, value):
    response = api.get(group_endpoint.path, {"include_total": value})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"include_total": 10005}


# --- unknown, empty and repeated parameters ----------------------------------------------------------------


def test_unknown_parameter_is_10007_and_named(api, group_endpoint):
    response = api.get(group_endpoint.path, {"colour": "red"})
    body = assert_problem(response, 400, 10007)
    assert problem_fields(response) == {"colour": 10007}
    assert "colour" in body["errors"][0]["message"]


def test_id_is_not_a_filter_of_a_list(api, org, group_endpoint):
    group = group_endpoint.make(org, "Senior")
    response = api.get(group_endpoint.path, {"id": group.pk})
    assert_problem(response, 400, 10007)
    assert problem_fields(response) == {"id": 10007}


def test_parameter_names_are_case_sensitive(api, group_endpoint):
    response = api.get(group_endpoint.path, {"Limit": "5"})
    assert_problem(response, 400, 10007)
    assert problem_fields(response) == {"Limit": 10007}


@pytest.mark.parametrize("name", ["name", "limit", "offset", "include_total", "include", "exclude"])
def test_parameter_without_value_is_400_and_named(api, group_endpoint, name):
    response = api.client.get(
        f"/main/v5{group_endpoint.path}?{name}=", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}"
    )
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {name: 10005}


def test_parameter_without_equals_sign_is_400(api, group_endpoint):
    response = api.client.get(
        f"/main/v5{group_endpoint.path}?name", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}"
    )
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"name": 10005}


def test_repeated_parameter_is_400(api, group_endpoint):
    response = api.client.get(
        f"/main/v5{group_endpoint.path}?limit=1&limit=2", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}"
    )
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"limit": 10005}


def test_several_unknown_parameters_are_all_named_with_10007(api, group_endpoint):
    response = api.get(group_endpoint.path, {"colour": "red", "size": "2"})
    assert_problem(response, 400, 10007)
    assert problem_fields(response) == {"colour": 10007, "size": 10007}


def test_unknown_and_wrong_parameters_together_are_10005_and_all_named(api, group_endpoint):
    response = api.get(group_endpoint.path, {"colour": "red", "limit": "0", "offset": "-2", "include_total": "1"})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"colour": 10007, "limit": 10005, "offset": 10005, "include_total": 10005}


def test_wrong_include_and_exclude_are_reported_with_the_other_problems(api, group_endpoint):
    response = api.get(group_endpoint.path, {"colour": "red", "include": "phone", "exclude": "colour"})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"colour": 10007, "include": 10005, "exclude": 10005}


# --- include and exclude -------------------------------------------------------------------------------


def test_include_users_adds_the_block_to_every_item(api, org, group_endpoint):
    senior = group_endpoint.make(org, "Senior")
    junior = group_endpoint.make(org, "Junior")
    member = group_endpoint.add_member(senior, user__first_name="Anna", user__last_name="Berg")

    data = api.get(group_endpoint.path, {"include": "users"}).json()["data"]

    assert data == [
        {"id": junior.pk, "name": "Junior", "users": []},
        {
            "id": senior.pk,
            "name": "Senior",
            "users": [
                {"id": member.user_id, "name": "Anna Berg", "member_number": member.member_number, "active": True}
            ],
        },
    ]


@pytest.mark.parametrize("include", ["phone", "users,phone", "Users", "users,", ",users", "id"])
def test_include_of_a_block_not_offered_is_400(api, group_endpoint, include):
    response = api.get(group_endpoint.path, {"include": include})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"include": 10005}


def test_exclude_leaves_the_field_out_of_every_item(api, org, group_endpoint):
    senior = group_endpoint.make(org, "Senior")
    junior = group_endpoint.make(org, "Junior")

    data = api.get(group_endpoint.path, {"exclude": "name"}).json()["data"]

    assert data == [{"id": junior.pk}, {"id": senior.pk}]


def test_exclude_and_include_together(api, org, group_endpoint):
    group_endpoint.make(org, "Senior")

    data = api.get(group_endpoint.path, {"exclude": "id", "include": "users"}).json()["data"]

    assert data == [{"name": "Senior", "users": []}]


@pytest.mark.parametrize("exclude", ["colour", "users", "name,colour", "Name"])
def test_exclude_of_an_unknown_name_is_400_and_lists_the_usable_names(api, group_endpoint, exclude):
    response = api.get(group_endpoint.path, {"exclude": exclude})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"exclude": 10005}
    message = problem_messages(response)["exclude"]
    assert "id" in message and "name" in message


def test_an_excluded_field_can_still_be_a_filter(api, org, group_endpoint):
    senior = group_endpoint.make(org, "Senior")
    group_endpoint.make(org, "Junior")

    data = api.get(group_endpoint.path, {"exclude": "name", "name": "Senior"}).json()["data"]

    assert data == [{"id": senior.pk}]


# --- text search ---------------------------------------------------------------------------------------


@pytest.fixture
def named(org, group_endpoint):
    """Creates items with these names; returns a function that lists the names a search finds."""

    def make(*names):
        for name in names:
            group_endpoint.make(org, name)

    return make


def found(api, group_endpoint, search: str) -> list[str]:
    response = api.get(group_endpoint.path, {"name": search})
    assert response.status_code == 200, response.content
    return [item["name"] for item in response.json()["data"]]


def test_search_matches_the_whole_value_without_regard_to_case(api, group_endpoint, named):
    named("Senior", "Senior Plus", "Junior")

    assert found(api, group_endpoint, "Senior") == ["Senior"]
    assert found(api, group_endpoint, "senior") == ["Senior"]
    assert found(api, group_endpoint, "SENIOR") == ["Senior"]
    assert found(api, group_endpoint, "sen") == []
    assert found(api, group_endpoint, "enior") == []


def test_search_star_matches_any_run_of_characters(api, group_endpoint, named):
    named("Senior", "Student", "Junior", "Family", "S")

    assert found(api, group_endpoint, "S*") == ["S", "Senior", "Student"]
    assert found(api, group_endpoint, "*or") == ["Junior", "Senior"]
    assert found(api, group_endpoint, "*n*") == ["Junior", "Senior", "Student"]
    assert found(api, group_endpoint, "s*t") == ["Student"]
    assert found(api, group_endpoint, "*") == ["Family", "Junior", "S", "Senior", "Student"]


def test_search_underscore_and_percent_are_ordinary_characters(api, group_endpoint, named):
    named("A_B", "AxB", "100%", "1000", "A%B")

    assert found(api, group_endpoint, "A_B") == ["A_B"]
    assert found(api, group_endpoint, "100%") == ["100%"]
    assert found(api, group_endpoint, "%") == []
    assert found(api, group_endpoint, "_") == []
    assert found(api, group_endpoint, "A%B") == ["A%B"]
    assert found(api, group_endpoint, "*%*") == ["100%", "A%B"]


@pytest.mark.parametrize(
    "name", ["a.b", "a+b", "(a)", "[a]", "a|b", "a^b", "a$b", "a?b", "a\\b", "a{2}", "a-b", "a#b", "a b", "a'b"]
)
def test_search_treats_regular_expression_characters_literally(api, group_endpoint, named, name):
    named(name, "aab", "ab", "a", "b", "aa")

    assert found(api, group_endpoint, name) == [name]


def test_search_ignores_case_of_non_ascii_letters(api, group_endpoint, named):
    named("Årskort", "Ängby", "Örnen", "Arskort")

    assert found(api, group_endpoint, "ÅRSKORT*") == ["Årskort"]
    assert found(api, group_endpoint, "äNGBY") == ["Ängby"]
    assert found(api, group_endpoint, "*RNEN") == ["Örnen"]


def test_search_value_with_non_ascii_is_kept_in_links_next(api, org, group_endpoint):
    for name in ("Årskort 1", "Årskort 2"):
        group_endpoint.make(org, name)

    body = api.get(group_endpoint.path, {"name": "årskort*", "limit": 1}).json()

    assert [item["name"] for item in body["data"]] == ["Årskort 1"]
    assert parse_qs(urlsplit(body["links"]["next"]).query)["name"] == ["årskort*"]


# --- order ---------------------------------------------------------------------------------------------


def test_list_is_sorted_by_name_case_insensitively_then_by_id(api, org, group_endpoint):
    items = [
        group_endpoint.make(org, "beta"),
        group_endpoint.make(org, "Alpha"),
        group_endpoint.make(org, "alpha"),
        group_endpoint.make(org, "Gamma"),
        group_endpoint.make(org, "ALPHA"),
        group_endpoint.make(org, "Beta"),
    ]
    ids = {item.pk: item.name for item in items}
    expected = sorted(ids, key=lambda pk: (ids[pk].lower(), pk))

    data = api.get(group_endpoint.path).json()["data"]

    assert [item["id"] for item in data] == expected
    assert [item["name"] for item in data] == ["Alpha", "alpha", "ALPHA", "beta", "Beta", "Gamma"]


def test_sort_ignores_case_of_non_ascii_letters(api, org, group_endpoint):
    group_endpoint.make(org, "Öb")
    group_endpoint.make(org, "öa")

    data = api.get(group_endpoint.path).json()["data"]

    assert [item["name"] for item in data] == ["öa", "Öb"]


def test_links_next_is_https_behind_a_trusted_proxy(api, org, group_endpoint, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    for name in ("A", "B"):
        group_endpoint.make(org, name)

    # As a proxy forwards it: plain HTTP from the proxy's address, with the client's Host and scheme.
    response = api.get(
        group_endpoint.path,
        {"limit": 1},
        secure=False,
        REMOTE_ADDR="10.0.0.1",
        HTTP_HOST="testserver",
        HTTP_X_FORWARDED_PROTO="https",
    )

    assert response.status_code == 200
    assert response.json()["links"]["next"].startswith("https://testserver/main/v5/")


def test_an_offset_far_past_the_end_gives_an_empty_page(api, org, group_endpoint):
    group_endpoint.make(org, "Senior")
    offset = 999_999_999_999_999_999  # 18 digits: a whole number the service takes, far past any data

    body = api.get(group_endpoint.path, {"offset": offset}).json()

    assert body["data"] == []
    assert body["meta"] == {"count": 0, "limit": 100, "offset": offset, "has_more": False}
    assert body["links"]["next"] is None


@pytest.mark.parametrize("offset", [str(10**18), str(2**63 - 1), "99999999999999999999", "1" + "0" * 40])
def test_an_offset_of_more_than_18_digits_is_400(api, group_endpoint, offset):
    """At most 18 digits: offset + limit must stay inside the database's 64-bit OFFSET (docs/decisions.md §1.9
    "Query parameters")."""
    response = api.get(group_endpoint.path, {"offset": offset})

    assert_problem(response, 400, 10005)
    assert problem_messages(response) == {"offset": "offset must be at most 999999999999999999."}
