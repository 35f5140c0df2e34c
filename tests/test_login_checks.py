"""POST /main/v5/login-checks: a member's username and password, checked without changing anything.

Contract: "Login check" and "Login check reply"; ../shared/DECISIONS.md "Rights", "Readings of the contract" and
"Limits that the contract leaves open": the right is `login_checks` read, only members of the token's
organization are valid, and 5 failed logins per username in 15 minutes (shared with the website's login page)
give 429 10012 with `Retry-After` (docs/decisions.md §3.16 "Login checks", §3.17 "Failed logins").
"""

import pytest
from django.contrib.auth.hashers import make_password

from accounts.services import logins
from tests.factories import MemberFactory, UserFactory
from tests.helpers import assert_problem, problem_fields

PASSWORD = "secret-pass-1"  # UserFactory's
LIMIT = 5
WINDOW = 15 * 60
INVALID = {"data": {"valid": False, "user": None}}


@pytest.fixture
def member(org):
    return MemberFactory(
        organization=org,
        user__username="anna.berg",
        user__first_name="Anna",
        user__last_name_particle="von",
        user__last_name="Berg",
    )


def check(api, username, password=PASSWORD):
    return api.post("/login-checks", json={"username": username, "password": password})


def fail(api, username: str, times: int) -> None:
    for _ in range(times):
        response = check(api, username, "wrong-password")
        assert response.status_code == 200, response.content
        assert response.json() == INVALID


def assert_failed_logins_limit(response) -> int:
    """429 10012 with `Retry-After`: the whole seconds left of the 15-minute window."""
    body = assert_problem(response, 429, 10012)
    assert body["type"] == "https://testserver/errors/too-many-requests"
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= WINDOW
    return retry_after


# --- the reply -------------------------------------------------------------------------------------


def test_a_right_login_is_valid_with_the_user(api, member):
    response = check(api, "anna.berg")

    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "valid": True,
            "user": {
                "id": member.user_id,
                "username": "anna.berg",
                "name": "Anna von Berg",
                "first_name": "Anna",
                "last_name_particle": "von",
                "last_name": "Berg",
            },
        }
    }


def test_a_missing_last_name_particle_is_null(api, org):
    member = MemberFactory(organization=org, user__last_name_particle="")

    user = check(api, member.user.username).json()["data"]["user"]

    assert user["last_name_particle"] is None


def test_a_wrong_password_is_200_and_not_valid_with_user_null(api, member):
    response = check(api, "anna.berg", "wrong-password")

    assert response.status_code == 200
    assert response.json() == INVALID


def test_an_unknown_username_gets_the_same_reply_as_a_wrong_password(api, member):
    unknown = check(api, "nobody-here")
    wrong = check(api, "anna.berg", "wrong-password")

    assert unknown.status_code == wrong.status_code == 200
    assert unknown.json() == wrong.json() == INVALID


def test_an_unknown_username_runs_the_password_hasher_too(api, member, monkeypatch):
    """Similar timing: one hasher run whether the username exists or not."""
    runs = []
    real = logins.check_password
    monkeypatch.setattr(logins, "check_password", lambda *args, **kwargs: runs.append(1) or real(*args, **kwargs))

    check(api, "nobody-here")
    check(api, "anna.berg", "wrong-password")

    assert len(runs) == 2


def test_the_username_is_compared_without_regard_to_letter_case(api, org):
    member = MemberFactory(organization=org, user__username="Erik.Lund")

    for given in ("Erik.Lund", "erik.lund", "ERIK.LUND"):
        data = check(api, given).json()["data"]
        assert data["valid"] is True, given
        assert data["user"]["id"] == member.user_id
        assert data["user"]["username"] == "Erik.Lund"


def test_the_password_is_compared_exactly(api, member):
    assert check(api, "anna.berg", PASSWORD.upper()).json() == INVALID
    assert check(api, "anna.berg", f" {PASSWORD}").json() == INVALID


def test_a_login_that_is_no_member_of_the_organization_is_not_valid(api):
    UserFactory(username="no.member")

    assert check(api, "no.member").json() == INVALID


def test_a_member_of_another_organization_only_is_not_valid(api, other_org, make_api):
    """Tenancy: the other organization's token accepts the login; ours does not."""
    other = MemberFactory(organization=other_org, user__username="bergen.pilot")

    assert check(api, "bergen.pilot").json() == INVALID
    other_check = check(make_api(other_org, rights={"login_checks": "r"}), "bergen.pilot").json()
    assert other_check["data"]["valid"] is True
    assert other_check["data"]["user"]["id"] == other.user_id


def test_a_member_of_both_organizations_is_valid_in_each(api, org, other_org, make_api):
    member = MemberFactory(organization=org, user__username="two.clubs")
    MemberFactory(organization=other_org, user=member.user)

    assert check(api, "two.clubs").json()["data"]["valid"] is True
    assert check(make_api(other_org, rights={"login_checks": "r"}), "two.clubs").json()["data"]["valid"] is True


def test_a_locked_login_is_not_valid(api, org):
    MemberFactory(organization=org, user__username="locked", user__locked_login=True)

    assert check(api, "locked").json() == INVALID


def test_a_deactivated_login_is_not_valid(api, org):
    MemberFactory(organization=org, user__username="inactive", user__is_active=False)

    assert check(api, "inactive").json() == INVALID


def test_a_login_without_a_usable_password_is_not_valid(api, org):
    member = MemberFactory(organization=org, user__username="new.member")
    member.user.set_unusable_password()
    member.user.save()

    assert check(api, "new.member").json() == INVALID
    assert check(api, "new.member", member.user.password).json() == INVALID


def test_a_check_changes_nothing(api, member):
    """No last_login, and no re-hashing of a password stored with outdated parameters (a short salt)."""
    user = member.user
    user.password = make_password(PASSWORD, salt="short", hasher="md5")
    user.save()
    stored = user.password

    assert check(api, "anna.berg").json()["data"]["valid"] is True
    assert check(api, "anna.berg", "wrong-password").json() == INVALID

    user.refresh_from_db()
    assert user.last_login is None
    assert user.password == stored


# --- rights ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rights",
    [{}, {"login_checks": "w"}, {"users": "rw", "users_sensitive": "rw"}],
    ids=["none", "write-only", "other-modules"],
)
def test_without_the_login_checks_read_right_the_check_is_forbidden(org, make_api, member, rights):
    response = check(make_api(org, rights=rights), "anna.berg")

    assert_problem(response, 403, 10002)


@pytest.mark.parametrize("right", ["r", "rw"])
def test_the_login_checks_read_right_is_enough(org, make_api, member, right):
    response = check(make_api(org, rights={"login_checks": right}), "anna.berg")

    assert response.status_code == 200
    assert response.json()["data"]["valid"] is True


def test_the_check_is_a_post_only(api):
    response = api.get("/login-checks")

    assert_problem(response, 405, 10050)


# --- the body --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"password": PASSWORD}, {"username": 10006}),
        ({"username": "anna.berg"}, {"password": 10006}),
        ({}, {"username": 10006, "password": 10006}),
        ({"username": "", "password": PASSWORD}, {"username": 10006}),
        ({"username": "anna.berg", "password": None}, {"password": 10006}),
        ({"username": 7, "password": PASSWORD}, {"username": 10006}),
        ({"username": "anna.berg", "password": ["x"]}, {"password": 10006}),
    ],
    ids=["no-username", "no-password", "empty-object", "empty-username", "null-password", "number", "list"],
)
def test_a_missing_or_wrong_field_is_named(api, member, body, fields):
    response = api.post("/login-checks", json=body)

    assert_problem(response, 400, 10006)
    assert problem_fields(response) == fields


def test_an_unknown_field_is_10007(api, member):
    response = api.post("/login-checks", json={"username": "anna.berg", "password": PASSWORD, "remember": True})

    assert_problem(response, 400, 10007)
    assert problem_fields(response) == {"remember": 10007}


def test_an_unknown_field_with_a_missing_one_is_10006_listing_both(api, member):
    response = api.post("/login-checks", json={"username": "anna.berg", "pasword": PASSWORD})

    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {"pasword": 10007, "password": 10006}


@pytest.mark.parametrize("raw", ["[]", '"anna.berg"', "null", "{not json", ""], ids=str)
def test_a_body_that_is_not_a_json_object_is_10004(api, raw):
    response = api.client.post(
        "/main/v5/login-checks",
        data=raw,
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    assert_problem(response, 400, 10004)


def test_an_unknown_query_parameter_is_10007(api, member):
    response = api.post("/login-checks?verbose=true", json={"username": "anna.berg", "password": PASSWORD})

    assert_problem(response, 400, 10007)


def test_body_errors_do_not_count_as_failed_logins(api, member, frozen_time):
    for _ in range(LIMIT + 1):
        assert api.post("/login-checks", json={"username": "anna.berg"}).status_code == 400

    assert check(api, "anna.berg").json()["data"]["valid"] is True


# --- the limit of failed logins --------------------------------------------------------------------


def test_after_5_failures_the_right_password_gets_429_10012_with_retry_after(api, member, frozen_time):
    fail(api, "anna.berg", LIMIT)

    assert_failed_logins_limit(check(api, "anna.berg"))
    assert_failed_logins_limit(check(api, "anna.berg", "wrong-password"))


def test_4_failures_leave_the_username_usable(api, member, frozen_time):
    fail(api, "anna.berg", LIMIT - 1)

    assert check(api, "anna.berg").json()["data"]["valid"] is True


def test_right_checks_do_not_count(api, member, frozen_time):
    for _ in range(LIMIT * 2):
        assert check(api, "anna.berg").json()["data"]["valid"] is True


def test_the_block_ends_with_the_window_within_15_minutes(api, member, frozen_time):
    fail(api, "anna.berg", LIMIT)
    retry_after = assert_failed_logins_limit(check(api, "anna.berg"))

    frozen_time.shift(retry_after - 1)
    assert assert_failed_logins_limit(check(api, "anna.berg")) == 1

    frozen_time.shift(1)
    assert check(api, "anna.berg").json()["data"]["valid"] is True


def test_15_minutes_after_the_failures_the_username_is_free_again(api, member, frozen_time):
    fail(api, "anna.berg", LIMIT)
    assert_failed_logins_limit(check(api, "anna.berg"))

    frozen_time.shift(WINDOW)

    assert check(api, "anna.berg").json()["data"]["valid"] is True


def test_retry_after_counts_down_with_the_clock(api, member, frozen_time):
    fail(api, "anna.berg", LIMIT)
    first = assert_failed_logins_limit(check(api, "anna.berg"))

    frozen_time.shift(first // 2)

    assert assert_failed_logins_limit(check(api, "anna.berg")) == first - first // 2


def test_failures_count_per_username_without_regard_to_letter_case(api, member, frozen_time):
    for given in ("anna.berg", "ANNA.BERG", "Anna.Berg", "anna.BERG", "aNNA.berg"):
        fail(api, given, 1)

    assert_failed_logins_limit(check(api, "Anna.Berg"))


def test_one_blocked_username_leaves_the_others_alone(api, org, member, frozen_time):
    other = MemberFactory(organization=org, user__username="per.holm")
    fail(api, "anna.berg", LIMIT)

    data = check(api, "per.holm").json()["data"]

    assert data["valid"] is True
    assert data["user"]["id"] == other.user_id


# --- usernames that are no members of the token's organization (issue 18) --------------------------
# ../shared/DECISIONS.md "Limits that the contract leaves open": they answer `valid: false` and count toward the
# token's own 20 failed checks in 10 minutes, never toward the username (docs/decisions.md §3.19).

TOKEN_LIMIT = 20
TOKEN_WINDOW = 10 * 60


def test_another_organizations_checks_do_not_lock_a_member_out(api, org, other_org, make_api, client, frozen_time):
    """Five wrong checks of our member with the second organization's token used to lock them out of /login."""
    MemberFactory(organization=org, user__username="1-gustaf.vonessen")
    other_api = make_api(other_org, rights={"login_checks": "r"})

    fail(other_api, "1-gustaf.vonessen", LIMIT * 3)

    assert check(api, "1-gustaf.vonessen").json()["data"]["valid"] is True
    response = client.post("/login", {"username": "1-gustaf.vonessen", "password": PASSWORD}, secure=True)
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


def test_a_non_member_with_the_right_password_is_not_valid_and_counts_for_the_token(api, other_org, frozen_time):
    MemberFactory(organization=other_org, user__username="bergen.pilot")

    for _ in range(TOKEN_LIMIT):
        assert check(api, "bergen.pilot").json() == INVALID

    assert_token_limit(check(api, "bergen.pilot"))


def test_a_blocked_member_of_another_organization_is_just_not_valid(api, other_org, make_api, frozen_time):
    """The other organization cannot learn that the login is blocked (nor that it exists)."""
    MemberFactory(organization=other_org, user__username="bergen.pilot")
    fail(make_api(other_org, rights={"login_checks": "r"}), "bergen.pilot", LIMIT)

    assert check(api, "bergen.pilot").json() == INVALID


def test_a_former_member_counts_for_the_token_not_the_username(api, org, other_org, client, frozen_time):
    MemberFactory(organization=org, user__username="left.us", active=False)
    MemberFactory(organization=other_org, user__username="left.us-too", active=True)

    fail(api, "left.us", LIMIT)

    response = client.post("/login", {"username": "left.us", "password": PASSWORD}, secure=True)
    assert response.status_code == 302


def assert_token_limit(response) -> int:
    body = assert_problem(response, 429, 10012)
    assert "token" in body["detail"]
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= TOKEN_WINDOW
    return retry_after


def test_20_failed_checks_of_other_usernames_block_the_token(api, member, frozen_time):
    for number in range(TOKEN_LIMIT):
        fail(api, f"nobody-{number}", 1)  # unknown usernames: each once

    assert_token_limit(check(api, "nobody-else"))
    assert_token_limit(check(api, "anna.berg"))  # past its limit the token checks nothing


def test_19_failed_checks_leave_the_token_usable(api, member, frozen_time):
    fail(api, "nobody-here", TOKEN_LIMIT - 1)

    assert check(api, "anna.berg").json()["data"]["valid"] is True
    assert check(api, "nobody-here").json() == INVALID  # the 20th
    assert_token_limit(check(api, "nobody-here"))


def test_unknown_usernames_do_not_count_for_the_username(api, frozen_time):
    """An unknown username is no member: the same as another organization's member."""
    fail(api, "nobody-here", LIMIT + 1)

    assert check(api, "nobody-here").json() == INVALID


def test_the_token_block_ends_with_its_10_minute_window(api, member, frozen_time):
    fail(api, "nobody-here", TOKEN_LIMIT)
    retry_after = assert_token_limit(check(api, "anna.berg"))

    frozen_time.shift(retry_after)

    assert check(api, "anna.berg").json()["data"]["valid"] is True
    assert check(api, "nobody-here").json() == INVALID


def test_the_count_is_per_token(api, org, member, make_api, frozen_time):
    fail(api, "nobody-here", TOKEN_LIMIT)
    assert_token_limit(check(api, "nobody-here"))

    second = make_api(org, rights={"login_checks": "r"})

    assert check(second, "nobody-here").json() == INVALID
    assert check(second, "anna.berg").json()["data"]["valid"] is True


def test_failed_checks_of_members_do_not_count_for_the_token(api, org, frozen_time):
    usernames = [MemberFactory(organization=org).user.username for _ in range(6)]
    for username in usernames:
        fail(api, username, LIMIT - 1)  # 24 failures, none of them past a username's limit

    assert check(api, "nobody-here").json() == INVALID
    assert check(api, usernames[0]).json()["data"]["valid"] is True


def test_a_check_of_another_username_runs_the_hasher_once(api, other_org, monkeypatch):
    MemberFactory(organization=other_org, user__username="bergen.pilot")
    runs = []
    real = logins.check_password
    monkeypatch.setattr(logins, "check_password", lambda *args, **kwargs: runs.append(1) or real(*args, **kwargs))

    check(api, "bergen.pilot")
    check(api, "nobody-here")

    assert len(runs) == 2


def test_the_count_is_per_username_across_organizations(api, org, other_org, make_api, frozen_time):
    """The failed-login limit protects the login, whichever token is used."""
    member = MemberFactory(organization=org, user__username="two.clubs")
    MemberFactory(organization=other_org, user=member.user)
    other_api = make_api(other_org, rights={"login_checks": "r"})

    fail(api, "two.clubs", 3)
    fail(other_api, "two.clubs", 2)

    assert_failed_logins_limit(check(api, "two.clubs"))
    assert_failed_logins_limit(check(other_api, "two.clubs"))


def test_the_website_login_and_the_check_share_one_count(api, member, client, frozen_time):
    for _ in range(3):
        response = client.post("/login", {"username": "anna.berg", "password": "wrong-password"})
        assert response.status_code == 200
    fail(api, "anna.berg", 2)

    assert_failed_logins_limit(check(api, "anna.berg"))


def test_failed_checks_block_the_website_login(api, member, client, frozen_time):
    fail(api, "anna.berg", LIMIT)

    response = client.post("/login", {"username": "anna.berg", "password": PASSWORD})

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= WINDOW
    assert "_auth_user_id" not in client.session
