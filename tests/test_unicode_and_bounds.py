"""Letter case beyond ASCII, and numbers too large for the database, on every database we run on."""

import pytest

from accounts import services
from accounts.models import Member, User
from tests.factories import MemberFactory, MembershipFactory, UserGroupFactory
from tests.helpers import assert_problem, problem_fields


@pytest.fixture
def membership(org):
    return MembershipFactory(organization=org, name="Senior")


def new_user(org, membership, username, **extra):
    return {"username": username, "first_name": "Örjan", "last_name": "Åberg", "membership_id": membership.pk, **extra}


def test_usernames_differing_only_in_the_case_of_a_nordic_letter_are_duplicates(api, org, membership):
    assert api.post("/users", new_user(org, membership, f"{org.pk}-Örjan")).status_code == 201
    response = api.post("/users", new_user(org, membership, f"{org.pk}-örjan"))
    assert response.status_code == 409
    assert response.json()["code"] == 10030
    assert User.objects.filter(username__startswith=f"{org.pk}-").exclude(members__roles__role="admin").count() == 1


def test_expiry_type_names_differing_only_in_nordic_case_are_duplicates(api):
    assert api.post("/expiry-date-types", {"name": "Övning"}).status_code == 201
    response = api.post("/expiry-date-types", {"name": "öVNING"})
    assert response.status_code == 409
    assert response.json()["code"] == 10030


def test_sorted_by_name_ignores_case_of_nordic_letters(api, org):
    for name in ("Örn", "åke", "Ärla", "zeta", "Åsa", "äbc"):
        MembershipFactory(organization=org, name=name)
    names = [item["name"] for item in api.get("/memberships").json()["data"]]
    # Lower-cased, then by code point (PostgreSQL's C.UTF-8 and Python alike): z < ä < å < ö.
    assert names == ["zeta", "äbc", "Ärla", "åke", "Åsa", "Örn"]


def test_login_check_finds_a_login_in_any_case_of_its_nordic_letters(make_api, org):
    member = MemberFactory(organization=org, user__username=f"{org.pk}-Örjan")
    checker = make_api(org, rights={"login_checks": "r"})
    response = checker.post("/login-checks", {"username": f"{org.pk}-öRJAN", "password": "secret-pass-1"})
    assert response.json()["data"]["valid"] is True
    assert response.json()["data"]["user"]["id"] == member.user_id


@pytest.mark.parametrize("state", [{"active": False}, {"locked": True}])
def test_login_check_refuses_an_inactive_or_locked_member(make_api, org, state):
    member = MemberFactory(organization=org, **state)
    checker = make_api(org, rights={"login_checks": "r"})
    response = checker.post("/login-checks", {"username": member.user.username, "password": "secret-pass-1"})
    assert response.json()["data"] == {"valid": False, "user": None}


@pytest.mark.parametrize(
    "path",
    [
        "/users/100000000000000000000",
        "/users/9223372036854775808",
        "/users/99999999999999999999/expiry-dates",
        "/users/1/expiry-dates/99999999999999999999",
        "/memberships/100000000000000000000",
    ],
)
def test_ids_too_large_for_a_row_are_404(api, path):
    response = api.get(path)
    assert response.status_code == 404
    assert response.json()["code"] == 10100


def test_body_numbers_too_large_for_a_row_are_400(api, org, membership):
    group = UserGroupFactory(organization=org)
    before = Member.objects.count()
    response = api.post("/users", new_user(org, membership, f"{org.pk}-big", user_groups=[group.pk, 10**20]))
    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {"user_groups[1]": 10006}
    assert Member.objects.count() == before


# A full-width five and an Arabic-Indic zero: digits to str.isdigit(), not to the API.
@pytest.mark.parametrize("raw", ["\uff15", "1\u0660"])
def test_query_numbers_must_be_ascii_digits(api, raw):
    response = api.get("/memberships", {"limit": raw})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"limit": 10005}


def test_dates_must_be_ascii_digits(api, org):
    expiry_type = services.expiry_date_type_create(organization=org, name="Medical")
    member = MemberFactory(organization=org)
    full_width_year = "\uff12\uff10\uff12\uff17-01-01"
    response = api.put(f"/users/{member.user_id}/expiry-dates/{expiry_type.pk}", {"expiry_date": full_width_year})
    assert response.status_code == 400
    assert response.json()["code"] == 10110
