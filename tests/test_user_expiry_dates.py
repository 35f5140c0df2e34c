"""GET /users/{id}/expiry-dates, PUT and DELETE /users/{id}/expiry-dates/{type_id} (document 1, "Users'
expiry dates" and the user expiry date rows of "States and transitions")."""

import datetime as dt
from contextlib import contextmanager

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

from accounts import services
from accounts.expiry import expired_with_image_rule
from accounts.models import UserExpiryDate
from apicore import clock
from tests.factories import MemberFactory, UserFactory
from tests.helpers import assert_problem, problem_fields

ITEM_KEYS = ["id", "name", "expiry_date", "expired", "image_required", "has_image"]
PAST, FUTURE, NEVER = "2020-01-31", "2990-06-30", "2999-12-31"


pytestmark = pytest.mark.usefixtures("media")


@pytest.fixture
def licence(org):
    return services.expiry_date_type_create(organization=org, name="licence")


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg")


def add_date(member, expiry_type, expiry_date: str, *, image: bool = False, reminded: bool = False):
    row = UserExpiryDate.objects.create(
        member=member,
        type=expiry_type,
        expiry_date=expiry_date,
        reminded_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC) if reminded else None,
    )
    if image:
        row.image.save("scan.jpg", ContentFile(b"certificate"), save=True)
    return row


def path_of(member, expiry_type=None) -> str:
    base = f"/users/{member.user_id}/expiry-dates"
    return base if expiry_type is None else f"{base}/{expiry_type.pk}"


def stored(member, expiry_type) -> tuple | None:
    """The stored row as (date, image name, reminded_at), or None."""
    row = UserExpiryDate.objects.filter(member=member, type=expiry_type).first()
    return None if row is None else (row.expiry_date.isoformat(), row.image.name, row.reminded_at)


@contextmanager
def writes_recorded():
    """The INSERT, UPDATE and DELETE statements sent inside, read from what reaches the database cursor: the
    text that CaptureQueriesContext keeps is None for a prepared statement on PostgreSQL."""
    statements = []

    def record(execute, sql, params, many, context):
        if str(sql).lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            statements.append(str(sql))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield statements


# --- GET /users/{id}/expiry-dates -------------------------------------------------------------------


def test_one_item_per_type_sorted_by_name_with_the_users_date_or_null(api, org, member, medical, licence):
    class_rating = services.expiry_date_type_create(organization=org, name="Class rating", image_required=True)
    add_date(member, medical, FUTURE, image=True)
    add_date(member, class_rating, PAST)

    response = api.get(path_of(member))

    assert response.status_code == 200
    assert response.json()["data"] == [
        {
            "id": class_rating.pk,
            "name": "Class rating",
            "expiry_date": PAST,
            "expired": True,
            "image_required": True,
            "has_image": False,
        },
        {
            "id": licence.pk,
            "name": "licence",
            "expiry_date": None,
            "expired": None,
            "image_required": False,
            "has_image": False,
        },
        {
            "id": medical.pk,
            "name": "Medical",
            "expiry_date": FUTURE,
            "expired": False,
            "image_required": False,
            "has_image": True,
        },
    ]


def test_types_are_sorted_by_name_without_regard_to_case(api, org, member):
    upper = services.expiry_date_type_create(organization=org, name="B")
    lower = services.expiry_date_type_create(organization=org, name="a")
    data = api.get(path_of(member)).json()["data"]
    assert [item["id"] for item in data] == [lower.pk, upper.pk]


def test_another_members_dates_do_not_show(api, org, member, medical):
    add_date(MemberFactory(organization=org), medical, PAST, image=True)
    assert api.get(path_of(member)).json()["data"][0] == {
        "id": medical.pk,
        "name": "Medical",
        "expiry_date": None,
        "expired": None,
        "image_required": False,
        "has_image": False,
    }


def test_never_expiring_date_is_not_expired(api, member, medical):
    add_date(member, medical, NEVER)
    item = api.get(path_of(member)).json()["data"][0]
    assert (item["expiry_date"], item["expired"]) == (NEVER, False)


def test_an_inactive_member_is_still_a_user_of_the_organization(api, org, medical):
    inactive = MemberFactory(organization=org, active=False)
    add_date(inactive, medical, FUTURE)
    assert api.get(path_of(inactive)).json()["data"][0]["expiry_date"] == FUTURE
    assert api.put(path_of(inactive, medical), {"expiry_date": PAST}).status_code == 200


def test_list_parameters(api, org, member):
    types = [services.expiry_date_type_create(organization=org, name=f"Type {n}") for n in range(5)]

    body = api.get(path_of(member), {"limit": 2, "offset": 1, "include_total": "true"}).json()

    assert [item["id"] for item in body["data"]] == [types[1].pk, types[2].pk]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 1, "has_more": True, "total": 5}
    assert "offset=3" in body["links"]["next"]
    data = api.get(path_of(member), {"exclude": "expired,has_image"}).json()["data"]
    assert set(data[0]) == {"id", "name", "expiry_date", "image_required"}


@pytest.mark.parametrize(
    ("query", "status", "code", "fields"),
    [
        ({"include": "dates"}, 400, 10005, {"include": 10005}),
        ({"exclude": "colour"}, 400, 10005, {"exclude": 10005}),
        ({"limit": "501"}, 400, 10005, {"limit": 10005}),
        ({"name": "Medical"}, 400, 10007, {"name": 10007}),
        ({"expired": "true"}, 400, 10007, {"expired": 10007}),
        ({"limit": ""}, 400, 10005, {"limit": 10005}),
    ],
)
def test_wrong_list_parameters_are_400(api, member, medical, query, status, code, fields):
    response = api.get(path_of(member), query)
    assert_problem(response, status, code)
    assert problem_fields(response) == fields


def test_unknown_user_is_404(api, org):
    assert_problem(api.get("/users/999999/expiry-dates"), 404, 10100)
    outsider = UserFactory()  # a login that is no member of the organization
    assert_problem(api.get(f"/users/{outsider.pk}/expiry-dates"), 404, 10100)


def test_paths_take_no_trailing_slash_and_numeric_ids(api, member, medical):
    assert_problem(api.get(path_of(member) + "/"), 404, 10100)
    assert_problem(api.put(f"/users/{member.user_id}/expiry-dates/abc", {"expiry_date": PAST}), 404, 10100)
    assert stored(member, medical) is None


def test_reading_costs_a_fixed_number_of_queries(api, org, member, medical, django_assert_max_num_queries):
    api.get("/token")  # the access token is fetched outside the counted calls
    with CaptureQueriesContext(connection) as one_type:
        assert api.get(path_of(member)).status_code == 200
    for n in range(30):
        expiry_type = services.expiry_date_type_create(organization=org, name=f"Type {n}", image_required=True)
        add_date(member, expiry_type, FUTURE, image=n % 2 == 0)
    with django_assert_max_num_queries(len(one_type)):
        data = api.get(path_of(member), {"limit": 500}).json()["data"]
    assert len(data) == 31


def expired_by_name(api, member, instant: dt.datetime) -> dict[str, bool | None]:
    with time_machine.travel(instant, tick=False):
        response = api.get(path_of(member), bearer=api.fetch_access_token())
    return {item["name"]: item["expired"] for item in response.json()["data"]}


def test_expired_uses_the_organizations_today_around_midnight(api, org, member, medical, licence):
    add_date(member, medical, "2026-03-01")
    add_date(member, licence, "2026-03-02")
    # 23:30 UTC on 1 March is already 00:30 on 2 March in Stockholm; 22:59 UTC is still 1 March there.
    assert expired_by_name(api, member, dt.datetime(2026, 3, 1, 23, 30, tzinfo=dt.UTC)) == {
        "Medical": True,
        "licence": False,
    }
    assert expired_by_name(api, member, dt.datetime(2026, 3, 1, 22, 59, tzinfo=dt.UTC)) == {
        "Medical": False,
        "licence": False,
    }

    org.timezone = "America/New_York"
    org.save()
    # 03:00 UTC on 3 March is still 22:00 on 2 March in New York.
    assert expired_by_name(api, member, dt.datetime(2026, 3, 3, 3, 0, tzinfo=dt.UTC)) == {
        "Medical": True,
        "licence": False,
    }


def test_switching_on_image_required_expires_dates_without_image_by_the_image_rule_only(api, org, member, medical):
    """The website and bookings count the date as expired at once; the API's `expired` is the date alone."""
    with_image = MemberFactory(organization=org)
    add_date(member, medical, FUTURE)
    add_date(with_image, medical, FUTURE, image=True)
    today = clock.today_in(org.timezone)

    def counted(m) -> tuple[bool, bool]:
        item = api.get(path_of(m)).json()["data"][0]
        by_rule = expired_with_image_rule(
            dt.date.fromisoformat(item["expiry_date"]),
            today=today,
            image_required=item["image_required"],
            has_image=item["has_image"],
        )
        return item["expired"], by_rule

    assert counted(member) == (False, False)
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"image_required": True})
    assert response.json()["data"]["image_required"] is True

    assert counted(member) == (False, True)
    assert counted(with_image) == (False, False)
    listed = api.get("/expiry-dates", {"user_id": member.user_id}).json()["data"]
    assert [(item["expired"], item["image_required"], item["has_image"]) for item in listed] == [(False, True, False)]


# --- PUT: none -> set ---------------------------------------------------------------------------------


def test_put_sets_a_new_date_and_replies_200_with_the_item(api, member, medical):
    assert stored(member, medical) is None

    response = api.put(path_of(member, medical), {"expiry_date": FUTURE})

    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "id": medical.pk,
            "name": "Medical",
            "expiry_date": FUTURE,
            "expired": False,
            "image_required": False,
            "has_image": False,
        }
    }
    assert stored(member, medical) == (FUTURE, "", None)
    assert api.get(path_of(member)).json()["data"][0] == response.json()["data"]


def test_put_accepts_a_date_in_the_past(api, member, medical):
    response = api.put(path_of(member, medical), {"expiry_date": PAST})
    assert response.json()["data"]["expired"] is True
    assert stored(member, medical) == (PAST, "", None)


def test_put_2999_12_31_when_the_type_may_never_expire(api, member, medical):
    response = api.put(path_of(member, medical), {"expiry_date": NEVER})
    assert response.status_code == 200
    assert (response.json()["data"]["expiry_date"], response.json()["data"]["expired"]) == (NEVER, False)
    assert stored(member, medical) == (NEVER, "", None)


def test_put_ignores_members_can_change(api, org, member):
    by_members = services.expiry_date_type_create(organization=org, name="Own", members_can_change=True)
    assert api.put(path_of(member, by_members), {"expiry_date": FUTURE}).status_code == 200
    assert api.put(path_of(member, by_members), {"expiry_date": PAST}).status_code == 200


def test_put_accepts_exclude_and_include_of_no_block_is_refused(api, member, medical):
    response = api.put(path_of(member, medical) + "?exclude=name,has_image", json={"expiry_date": FUTURE})
    assert response.status_code == 200
    assert list(response.json()["data"]) == ["id", "expiry_date", "expired", "image_required"]
    response = api.put(path_of(member, medical) + "?include=user", json={"expiry_date": PAST})
    assert_problem(response, 400, 10005)
    assert stored(member, medical) == (FUTURE, "", None)


# --- PUT: refusals save nothing -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code", "fields"),
    [
        ({"expiry_date": None}, 10006, {"expiry_date": 10006}),
        ({"expiry_date": ""}, 10006, {"expiry_date": 10006}),
        ({}, 10006, {"expiry_date": 10006}),
        ({"expiry_date": "2027-02-30"}, 10110, {"expiry_date": 10110}),
        ({"expiry_date": "27-01-01"}, 10110, {"expiry_date": 10110}),
        ({"expiry_date": "2027-01-01T00:00:00Z"}, 10110, {"expiry_date": 10110}),
        ({"expiry_date": 20270101}, 10110, {"expiry_date": 10110}),
        ({"expiry_date": "3000-01-01"}, 10006, {"expiry_date": 10006}),
        ({"expiry_date": FUTURE, "image": None}, 10007, {"image": 10007}),
        ({"expiry_date": FUTURE, "user_id": 1}, 10007, {"user_id": 10007}),
        ({"expiry_date": None, "colour": "red"}, 10006, {"expiry_date": 10006, "colour": 10007}),
    ],
)
@pytest.mark.parametrize("before", ["none", "set"])
def test_wrong_bodies_are_400_and_save_nothing(api, member, medical, body, code, fields, before):
    if before == "set":
        add_date(member, medical, PAST, image=True, reminded=True)
    state = stored(member, medical)

    response = api.put(path_of(member, medical), body)

    assert_problem(response, 400, code)
    assert problem_fields(response) == fields
    assert stored(member, medical) == state


@pytest.mark.parametrize("raw", ["", "[]", '"2027-01-01"', "{not json"])
def test_body_that_is_not_a_json_object_is_10004(api, member, medical, raw):
    response = api.call("PUT", path_of(member, medical), data=raw, content_type="application/json")
    assert_problem(response, 400, 10004)
    assert stored(member, medical) is None


@pytest.mark.parametrize("before", [None, PAST])
def test_put_2999_12_31_is_refused_when_the_type_may_not_never_expire(api, member, licence, before):
    if before:
        add_date(member, licence, before)
    state = stored(member, licence)

    response = api.put(path_of(member, licence), {"expiry_date": NEVER})

    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {"expiry_date": 10006}
    assert stored(member, licence) == state


def test_put_2999_12_31_is_refused_even_when_it_is_the_current_date(api, member, medical, media):
    add_date(member, medical, NEVER, image=True, reminded=True)
    state = stored(member, medical)
    api.patch(f"/expiry-date-types/{medical.pk}", {"may_never_expire": False})

    response = api.put(path_of(member, medical), {"expiry_date": NEVER})

    assert_problem(response, 400, 10006)
    assert stored(member, medical) == state
    assert (media / state[1]).exists()


def test_unknown_query_parameter_is_10007_and_saves_nothing(api, member, medical):
    response = api.put(path_of(member, medical) + "?verbose=true", json={"expiry_date": FUTURE})
    assert_problem(response, 400, 10007)
    assert stored(member, medical) is None


def test_put_for_an_unknown_user_or_type_is_404_and_saves_nothing(api, org, member, medical):
    assert_problem(api.put(f"/users/999999/expiry-dates/{medical.pk}", {"expiry_date": FUTURE}), 404, 10100)
    outsider = UserFactory()
    assert_problem(api.put(f"/users/{outsider.pk}/expiry-dates/{medical.pk}", {"expiry_date": FUTURE}), 404, 10100)
    assert_problem(api.put(f"{path_of(member)}/999999", {"expiry_date": FUTURE}), 404, 10100)
    assert not UserExpiryDate.objects.exists()


# --- PUT: set -> changed ------------------------------------------------------------------------------


def test_put_of_a_different_date_restarts_reminders_and_removes_the_image_after_commit(
    api, member, medical, media, django_capture_on_commit_callbacks
):
    add_date(member, medical, PAST, image=True, reminded=True)
    _, image, reminded_at = stored(member, medical)
    assert image and reminded_at is not None and (media / image).exists()

    with django_capture_on_commit_callbacks() as callbacks:
        response = api.put(path_of(member, medical), {"expiry_date": FUTURE})
        assert (media / image).exists()  # not before the transaction commits

    assert response.status_code == 200
    assert response.json()["data"]["has_image"] is False
    assert response.json()["data"]["expired"] is False
    assert stored(member, medical) == (FUTURE, "", None)
    for callback in callbacks:
        callback()
    assert not (media / image).exists()


def test_put_of_a_different_date_without_an_image_just_changes_it(api, member, medical):
    add_date(member, medical, FUTURE, reminded=True)
    response = api.put(path_of(member, medical), {"expiry_date": NEVER})
    assert response.json()["data"]["expiry_date"] == NEVER
    assert stored(member, medical) == (NEVER, "", None)


# --- PUT: set -> unchanged ----------------------------------------------------------------------------


def test_put_of_the_same_date_saves_nothing(api, member, medical, media, django_capture_on_commit_callbacks):
    add_date(member, medical, FUTURE, image=True, reminded=True)
    state = stored(member, medical)
    api.get("/token")  # the access token is fetched outside the watched call

    with writes_recorded() as writes, django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api.put(path_of(member, medical), {"expiry_date": FUTURE})

    assert response.status_code == 200
    assert response.json()["data"] == {
        "id": medical.pk,
        "name": "Medical",
        "expiry_date": FUTURE,
        "expired": False,
        "image_required": False,
        "has_image": True,
    }
    assert writes == []
    assert callbacks == []
    assert stored(member, medical) == state
    assert (media / state[1]).exists()


def test_put_of_the_same_never_date_saves_nothing(api, member, medical):
    add_date(member, medical, NEVER, reminded=True)
    state = stored(member, medical)
    api.get("/token")
    with writes_recorded() as writes:
        assert api.put(path_of(member, medical), {"expiry_date": NEVER}).status_code == 200
    assert writes == []
    assert stored(member, medical) == state


# --- DELETE: set -> none ------------------------------------------------------------------------------


def test_delete_removes_the_date_and_its_image_after_commit(
    api, member, medical, licence, media, django_capture_on_commit_callbacks
):
    add_date(member, medical, FUTURE, image=True)
    add_date(member, licence, FUTURE)
    image = stored(member, medical)[1]

    with django_capture_on_commit_callbacks() as callbacks:
        response = api.delete(path_of(member, medical))
        assert (media / image).exists()

    assert response.status_code == 204
    assert response.content == b""
    assert stored(member, medical) is None
    assert stored(member, licence) == (FUTURE, "", None)
    for callback in callbacks:
        callback()
    assert not (media / image).exists()
    item = api.get(path_of(member)).json()["data"][1]
    assert (item["name"], item["expiry_date"], item["expired"], item["has_image"]) == ("Medical", None, None, False)


def test_delete_without_an_image_deletes_no_file(api, member, medical, django_capture_on_commit_callbacks):
    add_date(member, medical, FUTURE)
    with django_capture_on_commit_callbacks() as callbacks:
        assert api.delete(path_of(member, medical)).status_code == 204
    assert callbacks == []
    assert stored(member, medical) is None


def test_delete_is_404_when_the_user_has_no_date_of_the_type(api, org, member, medical, licence):
    add_date(member, licence, FUTURE)
    add_date(MemberFactory(organization=org), medical, FUTURE)

    assert_problem(api.delete(path_of(member, medical)), 404, 10100)
    assert_problem(api.delete(f"/users/999999/expiry-dates/{medical.pk}"), 404, 10100)
    assert_problem(api.delete(f"{path_of(member)}/999999"), 404, 10100)
    assert UserExpiryDate.objects.count() == 2


def test_delete_twice_is_404_the_second_time(api, member, medical):
    add_date(member, medical, FUTURE)
    assert api.delete(path_of(member, medical)).status_code == 204
    assert_problem(api.delete(path_of(member, medical)), 404, 10100)


def test_delete_takes_no_parameters(api, member, medical):
    add_date(member, medical, FUTURE)
    response = api.delete(path_of(member, medical) + "?delete_dependents=true")
    assert_problem(response, 400, 10007)
    assert stored(member, medical) == (FUTURE, "", None)


# --- tenant separation --------------------------------------------------------------------------------


def test_another_organizations_user_is_not_reachable(api, other_org, medical):
    stranger = MemberFactory(organization=other_org)
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    add_date(stranger, their_type, FUTURE)

    assert_problem(api.get(path_of(stranger)), 404, 10100)
    assert_problem(api.put(path_of(stranger, medical), {"expiry_date": PAST}), 404, 10100)
    assert_problem(api.put(path_of(stranger, their_type), {"expiry_date": PAST}), 404, 10100)
    assert_problem(api.delete(path_of(stranger, their_type)), 404, 10100)
    assert list(UserExpiryDate.objects.values_list("member_id", "type_id")) == [(stranger.pk, their_type.pk)]
    assert stored(stranger, their_type) == (FUTURE, "", None)


def test_another_organizations_type_is_not_reachable(api, other_org, member, medical):
    their_type = services.expiry_date_type_create(organization=other_org, name="Night rating")

    assert [item["id"] for item in api.get(path_of(member)).json()["data"]] == [medical.pk]
    assert_problem(api.put(path_of(member, their_type), {"expiry_date": FUTURE}), 404, 10100)
    assert_problem(api.delete(path_of(member, their_type)), 404, 10100)
    assert not UserExpiryDate.objects.exists()


def test_a_user_in_two_organizations_has_separate_dates(api, other_api, org, other_org, member, medical):
    there = MemberFactory(organization=other_org, user=member.user)
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    add_date(there, their_type, PAST, image=True)

    data = api.get(path_of(member)).json()["data"]
    assert [(item["id"], item["expiry_date"]) for item in data] == [(medical.pk, None)]

    assert api.put(path_of(member, medical), {"expiry_date": FUTURE}).status_code == 200
    assert other_api.get(path_of(member)).json()["data"][0]["expiry_date"] == PAST
    assert_problem(other_api.delete(path_of(member, medical)), 404, 10100)
    assert api.delete(path_of(member, medical)).status_code == 204
    assert stored(there, their_type)[0] == PAST


# --- the services ---------------------------------------------------------------------------------------


def test_set_changes_a_date_created_meanwhile_by_another_request(member, medical, monkeypatch):
    """Two PUTs of a new date at once: the one that loses the insert changes the other's row."""
    real_first = QuerySet.first
    looked = []

    def first_then_a_rival_inserts(queryset):
        found = real_first(queryset)
        if not looked and queryset.model is UserExpiryDate:
            looked.append(found)
            UserExpiryDate.objects.create(member=member, type=medical, expiry_date=dt.date(2027, 1, 1))
        return found

    monkeypatch.setattr(QuerySet, "first", first_then_a_rival_inserts)
    row = services.user_expiry_date_set(member=member, expiry_type=medical, expiry_date=dt.date(2028, 1, 1))

    assert looked == [None]
    assert row.expiry_date == dt.date(2028, 1, 1)
    assert UserExpiryDate.objects.get().expiry_date == dt.date(2028, 1, 1)


def test_set_refuses_a_type_of_another_organization(member, other_org):
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    with pytest.raises(ValueError):
        services.user_expiry_date_set(member=member, expiry_type=their_type, expiry_date=dt.date(2028, 1, 1))
    assert not UserExpiryDate.objects.exists()


def test_a_change_rolled_back_keeps_the_image_file(member, medical, media, django_capture_on_commit_callbacks):
    add_date(member, medical, PAST, image=True)
    state = stored(member, medical)
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(RuntimeError), transaction.atomic():
        services.user_expiry_date_set(member=member, expiry_type=medical, expiry_date=dt.date(2028, 1, 1))
        raise RuntimeError("a later step fails")
    assert callbacks == []
    assert stored(member, medical) == state
    assert (media / state[1]).exists()
