"""Usernames are normalized once, everywhere: Unicode NFKC, then compared without regard to letter case;
invisible characters and mixed scripts are refused with 400 10006 naming `username`. `1-erik` in full-width
letters is `1-erik` in POST /users, the organization website's member form, the member website's login, POST
/login-checks and the shared count of failed logins (../shared/DECISIONS.md "Hostile input"; docs/decisions.md
§3.13 "Usernames: what is the same", §3.14 "Usernames: what is refused", §3.15 "Usernames: where the rule
applies")."""

import importlib

import pytest
from django.apps import apps as django_apps

from accounts.models import Member, User
from accounts.usernames import is_mixed_script, lookup_key, normalize_username, username_problem, username_skeleton
from apicore.errors import ServiceError
from tests.admin_fixtures import ADMIN, form_data, page_errors, web
from tests.factories import MemberFactory, MembershipFactory, make_admin
from tests.helpers import assert_problem, problem_fields, problem_messages

PASSWORD = "secret-pass-1"  # UserFactory's
LIMIT = 5
FULL_WIDTH = "\uff45\uff52\uff49\uff4b"  # erik in FULLWIDTH LATIN SMALL LETTERs
CYRILLIC_I = "er\u0456k"  # CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
# Each looks like (or is invisibly different from) "erik" and would be another login.
REFUSED_TAILS = {
    "zero width space": "erik\u200b",
    "zero width joiner": "er\u200dik",
    "soft hyphen": "er\u00adik",
    "byte order mark": "\ufefferik",
    "right-to-left override": "erik\u202e",
    "variation selector": "erik\ufe0f",
    "hangul filler": "erik\u3164",
    "no-break space": "erik\u00a0",
    "cyrillic i among latin": CYRILLIC_I,
    "greek omicron among latin": "r\u03bfger",
    "han among latin": "erik\u5c71",
}


@pytest.fixture
def membership(org):
    return MembershipFactory(organization=org, name="Senior")


def new_user(org, membership, tail: str) -> dict:
    return {"username": f"{org.pk}-{tail}", "first_name": "Erik", "last_name": "Ek", "membership_id": membership.pk}


@pytest.fixture
def erik(org):
    return MemberFactory(organization=org, user__username=f"{org.pk}-erik", user__first_name="Erik")


def made_by_test(org):
    return User.objects.filter(username__startswith=f"{org.pk}-").exclude(members__roles__role="admin")


# --- the rule itself -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("1-\uff45\uff52\uff49\uff4b", "1-erik"),
        ("\uff11-Erik", "1-Erik"),  # a full-width digit in the prefix
        ("1-O\u0308rjan", "1-Örjan"),  # O + COMBINING DIAERESIS is Ö
        ("1-ﬁa", "1-fia"),  # the ligature fi
        ("1-anna.berg_2@x", "1-anna.berg_2@x"),  # Common characters go with any script
        ("1-ёжик", "1-ёжик"),  # one script, not Latin
        ("1-山田たろう", "1-山田たろう"),  # Han with Hiragana: Japanese
        ("1-김민준", "1-김민준"),
    ],
)
def test_a_username_is_stored_in_nfkc_and_one_script_is_accepted(raw, stored):
    assert normalize_username(raw) == stored


@pytest.mark.parametrize("tail", REFUSED_TAILS.values(), ids=REFUSED_TAILS.keys())
def test_invisible_characters_and_mixed_scripts_are_refused_naming_username(tail):
    with pytest.raises(ServiceError) as refused:
        normalize_username(f"1-{tail}")
    assert refused.value.code == 10006
    assert [problem.field for problem in refused.value.errors] == ["username"]


def test_the_problem_says_what_is_wrong():
    assert "U+200B ZERO WIDTH SPACE" in username_problem("1-erik\u200b").message
    assert "(Cyrillic, Latin)" in username_problem(f"1-{CYRILLIC_I}").message
    assert "at most 150" in username_problem("1-" + "㎏" * 75).message  # 150 characters, 152 in NFKC


def test_mixed_scripts_means_letters_of_two_scripts():
    assert not is_mixed_script("1-erik.berg_2")
    assert not is_mixed_script("1-q\u0301")  # a combining mark (Inherited) that does not compose
    assert is_mixed_script("1-erik\u0456")
    assert is_mixed_script("\u0661-erik")  # an ARABIC-INDIC DIGIT ONE with Latin


def test_the_comparison_key_ignores_width_and_letter_case_of_nordic_letters():
    assert lookup_key("1-\uff25\uff32\uff29\uff2b") == lookup_key("1-erik") == "1-erik"
    assert lookup_key("1-Örjan") == lookup_key("1-öRJAN") == lookup_key("1-O\u0308RJAN")


# --- POST /users -----------------------------------------------------------------------------------------------


def test_a_full_width_username_is_the_same_as_the_ascii_one(api, org, membership):
    assert api.post("/users", new_user(org, membership, "erik")).status_code == 201

    response = api.post("/users", new_user(org, membership, FULL_WIDTH.upper()))

    body = assert_problem(response, 409, 10030)
    assert problem_fields(body) == {"username": 10030}
    assert list(made_by_test(org).values_list("username", flat=True)) == [f"{org.pk}-erik"]


def test_a_username_is_stored_as_nfkc_with_its_letter_case(api, org, membership):
    response = api.post("/users", new_user(org, membership, full_width("Erik")))

    assert response.status_code == 201, response.content
    assert response.json()["data"]["username"] == f"{org.pk}-Erik"
    assert made_by_test(org).get().username == f"{org.pk}-Erik"


def test_a_full_width_prefix_is_the_organization_prefix(api, org, membership):
    body = {**new_user(org, membership, "erik"), "username": full_width(f"{org.pk}-") + "erik"}

    response = api.post("/users", body)

    assert response.status_code == 201, response.content
    assert made_by_test(org).get().username == f"{org.pk}-erik"


@pytest.mark.parametrize("tail", REFUSED_TAILS.values(), ids=REFUSED_TAILS.keys())
def test_post_users_refuses_invisible_characters_and_mixed_scripts(api, org, membership, erik, tail):
    response = api.post("/users", new_user(org, membership, tail))

    body = assert_problem(response, 400, 10006)
    assert problem_fields(body) == {"username": 10006}
    assert list(made_by_test(org)) == [erik.user]


def test_a_refused_username_is_reported_with_the_bodys_other_problems(api, org, membership):
    body = {**new_user(org, membership, "erik\u200b"), "membership_id": 999999}

    fields = problem_fields(assert_problem(api.post("/users", body), 400, 10006))

    assert fields == {"username": 10006, "membership_id": 10006}


def test_post_users_keeps_nordic_letters_one_login_in_any_case_and_composition(api, org, membership):
    assert api.post("/users", new_user(org, membership, "Örjan")).status_code == 201

    response = api.post("/users", new_user(org, membership, "o\u0308RJAN"))

    assert_problem(response, 409, 10030)
    assert made_by_test(org).count() == 1


# --- POST /login-checks and the member website's login -----------------------------------------------------------


def login_check(api, username, password=PASSWORD):
    return api.post("/login-checks", json={"username": username, "password": password})


@pytest.mark.parametrize("tail", [FULL_WIDTH, FULL_WIDTH.upper(), "ERIK"])
def test_the_login_check_finds_erik_by_full_width_and_any_case(api, org, erik, tail):
    response = login_check(api, f"{org.pk}-{tail}")

    assert response.status_code == 200
    assert response.json()["data"]["valid"] is True
    assert response.json()["data"]["user"]["id"] == erik.user_id
    assert response.json()["data"]["user"]["username"] == f"{org.pk}-erik"


@pytest.mark.parametrize("tail", ["erik\u200b", CYRILLIC_I])
def test_the_login_check_refuses_an_invisible_or_mixed_script_username(api, org, erik, tail):
    response = login_check(api, f"{org.pk}-{tail}")

    body = assert_problem(response, 400, 10006)
    assert problem_fields(body) == {"username": 10006}


def full_width(text: str) -> str:
    """ASCII letters and digits as their full-width forms (U+FF01 to U+FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def test_the_member_website_logs_erik_in_by_his_full_width_username(client, org, erik):
    response = client.post("/login", {"username": f"{org.pk}-{FULL_WIDTH}", "password": PASSWORD}, secure=True)

    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == erik.user_id


def test_the_organization_website_logs_an_administrator_in_by_a_full_width_username(client, org):
    administrator = make_admin(org, username=f"{org.pk}-karin")

    response = client.post(
        f"{ADMIN}/login/", {"username": full_width(f"{org.pk}-KARIN"), "password": PASSWORD}, secure=True
    )

    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == administrator.pk


def test_the_member_website_refuses_an_invisible_or_mixed_script_username(client, org, erik):
    for tail in ("erik\u200b", CYRILLIC_I):
        response = client.post("/login", {"username": f"{org.pk}-{tail}", "password": PASSWORD}, secure=True)

        assert response.status_code == 200
        assert "_auth_user_id" not in client.session
        errors = response.context["form"].errors
        assert "username" in errors, errors


def test_failed_logins_of_the_full_width_and_ascii_username_share_one_count(client, api, org, erik, frozen_time):
    for _ in range(3):
        assert login_check(api, f"{org.pk}-{FULL_WIDTH}", "wrong-password").status_code == 200
    for _ in range(LIMIT - 3):
        assert (
            client.post("/login", {"username": f"{org.pk}-ERIK", "password": "wrong"}, secure=True).status_code == 200
        )

    assert_problem(login_check(api, f"{org.pk}-erik"), 429, 10012)
    refused = client.post("/login", {"username": f"{org.pk}-{FULL_WIDTH.upper()}", "password": PASSWORD}, secure=True)
    assert refused.status_code == 429


# --- the organization website's member form ----------------------------------------------------------------------


def add_member_page(client, **values):
    url = f"{ADMIN}/accounts/member/add/"
    data = form_data(client.get(url, secure=True))
    data.update(values)
    return client.post(url, data, secure=True)


@pytest.mark.parametrize("tail", [FULL_WIDTH, CYRILLIC_I])
def test_the_member_form_refuses_a_lookalike_of_an_existing_username(admin, org, membership, erik, tail):
    response = add_member_page(
        web(admin), username=f"{org.pk}-{tail}", first_name="E", last_name="K", membership=str(membership.pk)
    )

    assert page_errors(response)["username"]
    assert list(made_by_test(org)) == [erik.user]
    assert Member.objects.filter(organization=org).count() == 2  # Erik and the administrator


# --- stored usernames: the data migration ------------------------------------------------------------------------


def test_the_migration_stores_usernames_in_nfkc_and_leaves_a_clash_alone(org):
    migration = importlib.import_module("accounts.migrations.0006_usernames_nfkc")
    # Written as the API used to store them, past the service's rule.
    User.objects.bulk_create(
        [
            User(username=f"{org.pk}-{full_width('Lisa')}"),  # alone: becomes {org}-Lisa
            User(username=f"{org.pk}-erik"),
            User(username=f"{org.pk}-{FULL_WIDTH}"),  # clashes with {org}-erik: kept as it is
        ]
    )

    migration.usernames_to_nfkc(django_apps, None)

    names = set(User.objects.filter(username__startswith=f"{org.pk}-").values_list("username", flat=True))
    assert names == {f"{org.pk}-Lisa", f"{org.pk}-erik", f"{org.pk}-{FULL_WIDTH}"}


def test_problem_messages_name_the_character(api, org, membership):
    response = api.post("/users", new_user(org, membership, "erik\u200b"))

    assert "U+200B" in problem_messages(response)["username"]


def test_the_username_search_finds_a_full_width_spelling(api, org):
    erik = MemberFactory(organization=org, user__username=f"{org.pk}-erik")
    full_width = f"{org.pk}-\uff45\uff52\uff49\uff4b"  # the full-width spelling

    found = api.get("/users", {"username": full_width}).json()["data"]

    assert [user["id"] for user in found] == [erik.user_id]


# --- usernames that look alike (UTS #39 skeleton; docs/decisions.md §3.18) ------------------------------------

DOTLESS_ADMIN = "adm\u0131n"  # LATIN SMALL LETTER DOTLESS I
# Each looks like `erik` (or `ERIK`) and would be another login beside it.
LOOK_ALIKES = {
    "dotted capital I": "ER\u0130K",
    "e with a combining dot above": "e\u0307rik",
    "e with dot above": "\u0117rik",
    "k with a combining acute": "erik\u0301",
    "k with acute": "eri\u1e31",
}


def test_look_alikes_share_a_skeleton_and_other_usernames_do_not():
    assert username_skeleton(f"1-{DOTLESS_ADMIN}") == username_skeleton("1-ADMIN") == username_skeleton("1-admin")
    for tail in LOOK_ALIKES.values():
        assert username_skeleton(f"1-{tail}") == username_skeleton("1-erik"), tail
    assert username_skeleton("1-erik") != username_skeleton("1-eric")
    assert username_skeleton("1-erik") != username_skeleton("2-erik")
    assert username_skeleton("1-x") != username_skeleton("11-x") != username_skeleton("10-x")


def test_post_users_refuses_a_look_alike_of_an_existing_username_as_a_duplicate(api, org, membership, erik):
    assert api.post("/users", new_user(org, membership, "admin")).status_code == 201

    for tail in [DOTLESS_ADMIN, *LOOK_ALIKES.values()]:
        response = api.post("/users", new_user(org, membership, tail))

        body = assert_problem(response, 409, 10030)
        assert problem_fields(body) == {"username": 10030}, tail
    assert set(made_by_test(org).values_list("username", flat=True)) == {f"{org.pk}-erik", f"{org.pk}-admin"}


def test_the_same_tail_in_another_organization_is_not_a_duplicate(api, org, membership):
    other = MemberFactory(user__username=f"{org.pk + 1}-erik").organization
    assert other.pk != org.pk

    assert api.post("/users", new_user(org, membership, "erik")).status_code == 201


@pytest.mark.parametrize("tail", [DOTLESS_ADMIN.replace("adm", "er").replace("n", "k"), *LOOK_ALIKES.values()])
def test_the_member_form_refuses_a_look_alike_of_an_existing_username(admin, org, membership, erik, tail):
    response = add_member_page(
        web(admin), username=f"{org.pk}-{tail}", first_name="E", last_name="K", membership=str(membership.pk)
    )

    assert page_errors(response)["username"]
    assert list(made_by_test(org)) == [erik.user]


def test_a_username_is_stored_with_its_skeleton(api, org, membership):
    assert api.post("/users", new_user(org, membership, "Erik")).status_code == 201

    assert made_by_test(org).get().username_skeleton == username_skeleton(f"{org.pk}-erik")


def test_a_look_alike_logs_in_to_the_one_login_it_looks_like(api, client, org, erik):
    response = login_check(api, f"{org.pk}-\u0117rik")

    assert response.json()["data"]["valid"] is True
    assert response.json()["data"]["user"]["id"] == erik.user_id
    web_login = client.post("/login", {"username": f"{org.pk}-ER\u0130K", "password": PASSWORD}, secure=True)
    assert web_login.status_code == 302
    assert int(client.session["_auth_user_id"]) == erik.user_id


def test_failed_logins_of_look_alikes_share_one_count(api, org, erik, frozen_time):
    for tail in [*LOOK_ALIKES.values()][:LIMIT]:
        assert login_check(api, f"{org.pk}-{tail}", "wrong-password").status_code == 200

    assert_problem(login_check(api, f"{org.pk}-erik"), 429, 10012)


def test_the_migration_fills_skeletons_and_leaves_a_look_alike_without_one(org):
    migration = importlib.import_module("accounts.migrations.0013_username_skeletons")
    # Made before the rule: bulk_create skips save(), which sets the skeleton.
    older, newer, alone = User.objects.bulk_create(
        [User(username=f"{org.pk}-admin"), User(username=f"{org.pk}-{DOTLESS_ADMIN}"), User(username=f"{org.pk}-lisa")]
    )

    migration.fill_skeletons(django_apps, None)

    skeletons = dict(User.objects.filter(pk__in=[older.pk, newer.pk, alone.pk]).values_list("pk", "username_skeleton"))
    assert skeletons == {
        older.pk: username_skeleton(f"{org.pk}-admin"),
        newer.pk: None,
        alone.pk: username_skeleton(f"{org.pk}-lisa"),
    }


def test_a_login_left_without_a_skeleton_still_logs_in_by_its_own_username(api, org):
    older = MemberFactory(organization=org, user__username=f"{org.pk}-admin").user
    newer = MemberFactory(organization=org, user__username=f"{org.pk}-x").user
    User.objects.filter(pk=newer.pk).update(username=f"{org.pk}-{DOTLESS_ADMIN}", username_skeleton=None)

    assert login_check(api, f"{org.pk}-{DOTLESS_ADMIN}").json()["data"]["user"]["id"] == newer.pk
    assert login_check(api, f"{org.pk}-ADMIN").json()["data"]["user"]["id"] == older.pk
    newer.refresh_from_db()
    newer.first_name = "Saved"
    newer.save()  # a save that leaves the username alone keeps the skeleton NULL (no clash)
    assert User.objects.get(pk=newer.pk).username_skeleton is None
