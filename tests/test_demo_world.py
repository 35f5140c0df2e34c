"""`manage.py demo`: one JSON document on stdout, tokens that work, the trial club, members of two clubs,
the same document on every run."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import Member, Organization, User, UserEmail, UserExpiryDate
from economy.models import Transaction
from tests.conftest import BASE, basic

TOKEN_NAMES = ("full", "read_only", "no_rights", "trial_full")


def run_demo(capsys) -> dict:
    out = StringIO()
    call_command("demo", stdout=out)
    assert capsys.readouterr().out == ""  # nothing printed around the command's own output
    return json.loads(out.getvalue())  # one JSON document and nothing else


@pytest.fixture
def world(db, media, capsys):
    return run_demo(capsys)


def access_token(client: Client, token: dict) -> str:
    response = client.post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(token["client_id"], token["secret"]),
    )
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


def user_ids(token: dict, **params) -> set[int]:
    client = Client()
    response = client.get(
        f"{BASE}/users",
        {"limit": 500, **params},
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {access_token(client, token)}",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["meta"]["has_more"] is False
    return {item["id"] for item in body["data"]}


def test_the_document_keeps_its_keys_and_adds_the_trial_club(world):
    assert world["base_url"] == "/main/v5"
    assert set(world["organization"]) == {"id", "name"}
    assert set(world["admin"]) == {"username", "password"}
    assert set(world["tokens"]) == set(TOKEN_NAMES)
    for token in [*world["tokens"].values(), world["second_organization"]["tokens"]["full"]]:
        assert set(token) == {"client_id", "secret"}
        assert token["client_id"].isdigit()
    assert {"id", "name", "tokens"} <= set(world["second_organization"])
    assert set(world["trial_organization"]) >= {"id", "name"}
    assert len(world["members"]) >= 5
    for item in world["members"]:
        assert set(item) == {"id", "username", "password"}
    assert world["members"][0]["username"] == world["admin"]["username"]
    ids = {world["organization"]["id"], world["second_organization"]["id"], world["trial_organization"]["id"]}
    assert len(ids) == 3


def test_every_token_gets_an_access_token_and_members_can_log_in(world):
    client = Client()
    for token in [*world["tokens"].values(), world["second_organization"]["tokens"]["full"]]:
        assert access_token(client, token)
    for item in world["members"]:
        assert User.objects.get(pk=item["id"], username=item["username"]).check_password(item["password"])


def test_the_first_club_has_forty_members_with_every_kind_of_data(world):
    club = world["organization"]["id"]
    members = Member.objects.filter(organization_id=club)
    assert 38 <= members.count() <= 50
    assert members.filter(active=False).exists()
    assert members.filter(locked=True).exists()
    assert members.filter(user__locked_login=True).exists()
    assert members.exclude(user__last_name_particle="").count() >= 2
    assert members.filter(user__name__regex="[åäöÅÄÖ]").count() >= 5
    assert set(members.values_list("membership__name", flat=True)) >= {"Senior", "Junior", "Passive"}
    assert set(members.values_list("roles__role", flat=True)) >= {
        "admin",
        "instructor",
        "student",
        "board_member",
        "maintenance",
    }
    assert members.filter(user__mobile_country_code="46").count() >= 30
    assert UserEmail.objects.filter(user__members__organization_id=club, invalid=True).exclude(invalid_reason="")
    assert UserEmail.objects.filter(user__members__organization_id=club, position=1).exists()
    balances = {}
    for user_id, amount in Transaction.objects.filter(organization_id=club).values_list("user_id", "amount"):
        balances[user_id] = balances.get(user_id, 0) + amount
    assert any(balance != 0 for balance in balances.values())
    dates = UserExpiryDate.objects.filter(member__organization_id=club)
    assert dates.filter(expiry_date="2999-12-31", type__may_never_expire=True).exists()
    assert dates.filter(type__image_required=True, image="").exists()
    assert dates.filter(type__image_required=True).exclude(image="").exists()
    assert members.exclude(user__username__startswith=f"{club}-").count() >= 2


def test_the_trial_club_has_four_active_members_and_its_token_sees_only_them(world):
    trial = Organization.objects.get(pk=world["trial_organization"]["id"])
    assert trial.is_trial and not trial.uses_flight_log
    assert Member.objects.filter(organization=trial, active=True).count() == 4
    own = set(Member.objects.filter(organization=trial).values_list("user_id", flat=True))

    assert user_ids(world["tokens"]["trial_full"]) == own
    assert user_ids(world["tokens"]["trial_full"], active="true") == set(
        Member.objects.filter(organization=trial, active=True).values_list("user_id", flat=True)
    )
    assert not own & user_ids(world["tokens"]["full"])


def test_a_login_of_the_second_club_is_listed_by_both_clubs(world):
    second = world["second_organization"]["id"]
    shared = User.objects.filter(
        username__startswith=f"{second}-", members__organization_id=world["organization"]["id"]
    )
    assert shared.count() >= 2
    first_ids = user_ids(world["tokens"]["full"])
    second_ids = user_ids(world["second_organization"]["tokens"]["full"])
    for user in shared:
        assert Member.objects.filter(user=user).count() == 2
        assert user.pk in first_ids
        assert user.pk in second_ids


def test_a_second_run_prints_the_same_document(transactional_db, world, capsys):
    # Committed runs: PostgreSQL refuses a second TRUNCATE in a transaction that has deferred checks pending.
    assert run_demo(capsys) == world
