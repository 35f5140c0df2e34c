"""GET /expiry-dates (document 1, "Expiry date list item" and "Users' expiry dates")."""

import datetime as dt

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import services
from accounts.models import Member, User, UserExpiryDate
from tests.factories import MemberFactory
from tests.helpers import assert_problem, problem_fields

# Today in the tests that freeze the clock: 2026-11-25 in Stockholm.
NOW = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)
YESTERDAY, TODAY, TOMORROW, NEVER = "2026-11-24", "2026-11-25", "2026-11-26", "2999-12-31"


pytestmark = pytest.mark.usefixtures("media")


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def licence(org):
    return services.expiry_date_type_create(organization=org, name="Licence", image_required=True)


def member_named(organization, first_name: str, last_name: str = "Berg", **fields) -> Member:
    return MemberFactory(organization=organization, user__first_name=first_name, user__last_name=last_name, **fields)


def add_date(member, expiry_type, expiry_date: str, *, image: bool = False) -> UserExpiryDate:
    row = UserExpiryDate.objects.create(member=member, type=expiry_type, expiry_date=expiry_date)
    if image:
        row.image.save("scan.jpg", ContentFile(b"certificate"), save=True)
    return row


def listed(api, **query) -> list[tuple[str, str, str]]:
    """(user name, type name, date) of each item, in the reply's order."""
    response = api.get("/expiry-dates", query)
    assert response.status_code == 200, response.content
    return [(item["user"]["name"], item["type"]["name"], item["expiry_date"]) for item in response.json()["data"]]


# --- items and order ------------------------------------------------------------------------------------


def test_item_shape(api, org, frozen, medical, licence):
    anna = member_named(org, "Anna")
    add_date(anna, licence, YESTERDAY, image=True)
    add_date(anna, medical, NEVER)

    response = api.get("/expiry-dates")

    assert response.status_code == 200
    assert response.json()["data"] == [
        {
            "user": {"id": anna.user_id, "name": "Anna Berg"},
            "type": {"id": licence.pk, "name": "Licence"},
            "expiry_date": YESTERDAY,
            "expired": True,
            "image_required": True,
            "has_image": True,
        },
        {
            "user": {"id": anna.user_id, "name": "Anna Berg"},
            "type": {"id": medical.pk, "name": "Medical"},
            "expiry_date": NEVER,
            "expired": False,
            "image_required": False,
            "has_image": False,
        },
    ]


def test_only_existing_dates_are_listed(api, org, medical, licence):
    member_named(org, "Nodate")
    anna = member_named(org, "Anna")
    add_date(anna, medical, TOMORROW)
    assert listed(api) == [("Anna Berg", "Medical", TOMORROW)]


def test_sorted_by_date_then_member_name_without_regard_to_case_then_id(api, org, medical, licence):
    bertil = member_named(org, "bertil")
    anna_upper = member_named(org, "Anna")
    anna_lower = member_named(org, "anna")
    cecilia = member_named(org, "Cecilia")
    add_date(cecilia, medical, "2027-01-01")
    add_date(bertil, medical, "2027-05-01")
    first = add_date(anna_upper, licence, "2027-05-01")
    second = add_date(anna_upper, medical, "2027-05-01")
    add_date(anna_lower, medical, "2027-05-01")
    add_date(bertil, licence, NEVER)

    assert listed(api) == [
        ("Cecilia Berg", "Medical", "2027-01-01"),
        ("Anna Berg", "Licence", "2027-05-01"),
        ("Anna Berg", "Medical", "2027-05-01"),
        ("anna Berg", "Medical", "2027-05-01"),
        ("bertil Berg", "Medical", "2027-05-01"),
        ("bertil Berg", "Licence", NEVER),
    ]
    assert first.pk < second.pk


def test_list_parameters(api, org, medical):
    for n in range(5):
        add_date(member_named(org, f"Member{n}"), medical, f"2027-0{n + 1}-01")

    body = api.get("/expiry-dates", {"limit": 2, "offset": 2, "include_total": "true", "type_id": medical.pk}).json()

    assert [item["expiry_date"] for item in body["data"]] == ["2027-03-01", "2027-04-01"]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 2, "has_more": True, "total": 5}
    assert "offset=4" in body["links"]["next"]
    assert f"type_id={medical.pk}" in body["links"]["next"]
    last = api.get("/expiry-dates", {"offset": 4}).json()
    assert (last["meta"]["has_more"], last["links"]["next"]) == (False, None)
    assert "total" not in last["meta"]

    data = api.get("/expiry-dates", {"exclude": "user,has_image"}).json()["data"]
    assert list(data[0]) == ["type", "expiry_date", "expired", "image_required"]


# --- filters --------------------------------------------------------------------------------------------


@pytest.fixture
def dated(org, medical, licence):
    """Anna (active): Medical yesterday, Licence never. Bertil (inactive): Medical today, Licence tomorrow."""
    anna = member_named(org, "Anna")
    bertil = member_named(org, "Bertil", active=False)
    add_date(anna, medical, YESTERDAY)
    add_date(anna, licence, NEVER)
    add_date(bertil, medical, TODAY)
    add_date(bertil, licence, TOMORROW)
    return anna, bertil


def test_filter_type_id(api, dated, medical, licence):
    assert listed(api, type_id=medical.pk) == [("Anna Berg", "Medical", YESTERDAY), ("Bertil Berg", "Medical", TODAY)]
    assert listed(api, type_id=999999) == []


def test_filter_user_id_is_the_logins_id(api, dated):
    anna, _ = dated
    assert listed(api, user_id=anna.user_id) == [("Anna Berg", "Medical", YESTERDAY), ("Anna Berg", "Licence", NEVER)]


def test_filter_active_is_the_members_active(api, dated):
    assert [row[0] for row in listed(api, active="true")] == ["Anna Berg", "Anna Berg"]
    assert [row[0] for row in listed(api, active="false")] == ["Bertil Berg", "Bertil Berg"]


def test_filter_expired_is_the_date_before_today(api, frozen, dated):
    assert listed(api, expired="true") == [("Anna Berg", "Medical", YESTERDAY)]
    assert listed(api, expired="false") == [
        ("Bertil Berg", "Medical", TODAY),
        ("Bertil Berg", "Licence", TOMORROW),
        ("Anna Berg", "Licence", NEVER),
    ]


def test_filter_dates_from_and_to_are_inclusive(api, dated):
    assert listed(api, expiry_date_from=TODAY) == [
        ("Bertil Berg", "Medical", TODAY),
        ("Bertil Berg", "Licence", TOMORROW),
        ("Anna Berg", "Licence", NEVER),
    ]
    assert listed(api, expiry_date_to=TODAY) == [("Anna Berg", "Medical", YESTERDAY), ("Bertil Berg", "Medical", TODAY)]
    assert listed(api, expiry_date_from=TODAY, expiry_date_to=TODAY) == [("Bertil Berg", "Medical", TODAY)]
    assert listed(api, expiry_date_from=TOMORROW, expiry_date_to=TODAY) == []


def test_filters_combine(api, frozen, dated, licence):
    assert listed(api, type_id=licence.pk, active="false", expired="false", expiry_date_to="2026-12-31") == [
        ("Bertil Berg", "Licence", TOMORROW)
    ]


def test_an_excluded_field_can_still_be_a_filter(api, frozen, dated):
    anna, _ = dated
    response = api.get("/expiry-dates", {"exclude": "expired,expiry_date", "expired": "true"})
    assert response.json()["data"] == [
        {
            "user": {"id": anna.user_id, "name": "Anna Berg"},
            "type": {"id": UserExpiryDate.objects.get(expiry_date=YESTERDAY).type_id, "name": "Medical"},
            "image_required": False,
            "has_image": False,
        }
    ]


@pytest.mark.parametrize(
    ("query", "code", "fields"),
    [
        ({"type_id": "abc"}, 10005, {"type_id": 10005}),
        ({"user_id": "1.5"}, 10005, {"user_id": 10005}),
        ({"active": "1"}, 10005, {"active": 10005}),
        ({"expired": "TRUE"}, 10005, {"expired": 10005}),
        ({"expiry_date_from": "2026-13-01"}, 10110, {"expiry_date_from": 10110}),
        ({"expiry_date_to": "01/01/2026"}, 10110, {"expiry_date_to": 10110}),
        ({"expiry_date_from": ""}, 10005, {"expiry_date_from": 10005}),
        ({"name": "Anna"}, 10007, {"name": 10007}),
        ({"id": "1", "type": "1"}, 10007, {"id": 10007, "type": 10007}),
        ({"type_id": "x", "colour": "red"}, 10005, {"type_id": 10005, "colour": 10007}),
        ({"include": "user"}, 10005, {"include": 10005}),
        ({"exclude": "id"}, 10005, {"exclude": 10005}),
    ],
)
def test_wrong_parameters_are_400_and_named(api, query, code, fields):
    response = api.get("/expiry-dates", query)
    assert_problem(response, 400, code)
    assert problem_fields(response) == fields


# --- the organization's today ---------------------------------------------------------------------------


def expired_of(api, instant: dt.datetime, **query) -> list[tuple[str, bool]]:
    with time_machine.travel(instant, tick=False):
        response = api.get("/expiry-dates", query, bearer=api.fetch_access_token())
    return [(item["expiry_date"], item["expired"]) for item in response.json()["data"]]


def test_expired_uses_the_organizations_timezone_around_midnight(api, org, medical, licence):
    anna = member_named(org, "Anna")
    add_date(anna, medical, "2026-03-01")
    add_date(anna, licence, "2026-03-02")
    # 23:30 UTC on 1 March is 00:30 on 2 March in Stockholm: 1 March has passed there, not yet in UTC.
    late = dt.datetime(2026, 3, 1, 23, 30, tzinfo=dt.UTC)
    assert expired_of(api, late) == [("2026-03-01", True), ("2026-03-02", False)]
    assert expired_of(api, late, expired="true") == [("2026-03-01", True)]
    assert expired_of(api, late, expired="false") == [("2026-03-02", False)]
    # An hour earlier it is still 1 March in Stockholm.
    assert expired_of(api, dt.datetime(2026, 3, 1, 22, 30, tzinfo=dt.UTC)) == [
        ("2026-03-01", False),
        ("2026-03-02", False),
    ]

    org.timezone = "America/New_York"
    org.save()
    # 03:00 UTC on 3 March is 22:00 on 2 March in New York: 2 March has not passed there, though it has in UTC.
    early = dt.datetime(2026, 3, 3, 3, 0, tzinfo=dt.UTC)
    assert expired_of(api, early) == [("2026-03-01", True), ("2026-03-02", False)]
    assert expired_of(api, early, expired="false") == [("2026-03-02", False)]


def test_each_organization_counts_with_its_own_today(api, other_api, org, other_org, medical):
    other_org.timezone = "Pacific/Auckland"
    other_org.save()
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    add_date(member_named(org, "Anna"), medical, "2026-03-01")
    add_date(member_named(other_org, "Kari"), their_type, "2026-03-01")
    # 12:00 UTC on 1 March is 13:00 in Stockholm and already 01:00 on 2 March in Auckland.
    noon = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
    assert expired_of(api, noon) == [("2026-03-01", False)]
    assert expired_of(other_api, noon) == [("2026-03-01", True)]


# --- queries, rights, tenants -----------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_at_limit_1_and_500(api, org, medical, licence, django_assert_max_num_queries):
    users = User.objects.bulk_create(
        User(username=f"bulk{n}", first_name=f"Bulk{n}", last_name="Test", name=f"Bulk{n} Test") for n in range(260)
    )
    members = Member.objects.bulk_create(
        Member(user=user, organization=org, member_number=f"B{n}") for n, user in enumerate(users)
    )
    UserExpiryDate.objects.bulk_create(
        UserExpiryDate(member=member, type=expiry_type, expiry_date=dt.date(2027, 1, 1) + dt.timedelta(days=n))
        for n, member in enumerate(members)
        for expiry_type in (medical, licence)
    )
    api.get("/token")  # the access token is fetched outside the counted calls
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/expiry-dates", {"limit": 1}).json()["data"]) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/expiry-dates", {"limit": 500}).json()
    assert body["meta"]["count"] == 500
    assert body["meta"]["has_more"] is True
    with django_assert_max_num_queries(len(at_limit_1) + 1):  # the count of include_total
        api.get("/expiry-dates", {"limit": 500, "include_total": "true", "expired": "false", "active": "true"})


def test_another_organizations_dates_are_neither_listed_nor_filterable(api, other_api, org, other_org, medical):
    anna = member_named(org, "Anna")
    add_date(anna, medical, TOMORROW)
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    kari = member_named(other_org, "Kari")
    add_date(kari, their_type, TOMORROW)
    # Anna is a member there too, with a date of their type.
    add_date(MemberFactory(organization=other_org, user=anna.user), their_type, YESTERDAY)

    assert listed(api) == [("Anna Berg", "Medical", TOMORROW)]
    assert listed(api, type_id=their_type.pk) == []
    assert listed(api, user_id=kari.user_id) == []
    assert listed(other_api) == [("Anna Berg", "Medical", YESTERDAY), ("Kari Berg", "Medical", TOMORROW)]
    assert listed(other_api, type_id=medical.pk) == []


def test_a_date_whose_type_belongs_elsewhere_is_not_listed(api, org, other_org):
    """Should a date ever point at another organization's type, it is not shown as this organization's."""
    their_type = services.expiry_date_type_create(organization=other_org, name="Medical")
    add_date(member_named(org, "Anna"), their_type, TOMORROW)
    assert listed(api) == []
