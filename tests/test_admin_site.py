"""The organization website (/admin/): who may enter, and that each administrator sees one organization."""

import pytest
from django.contrib.auth import SESSION_KEY

from accounts.models import Member, MemberRole, Membership, Organization
from adminkit.site import CURRENT_ORGANIZATION_SESSION_KEY, OrganizationScopedAdmin
from tests.admin_fixtures import ADMIN, NO_EXPIRY_ROWS, listed, make_admin_of, make_superuser, web
from tests.factories import MemberFactory, MembershipFactory, OrganizationFactory, UserFactory, UserGroupFactory


@pytest.fixture
def world(org, other_org, admin):
    """Two clubs, each with a membership and a member; `admin` administers `org`."""
    own_membership = MembershipFactory(organization=org, name="Senior")
    other_membership = MembershipFactory(organization=other_org, name="Junior")
    own = MemberFactory(organization=org, membership=own_membership, member_number="501", user__first_name="Anna")
    other = MemberFactory(
        organization=other_org, membership=other_membership, member_number="502", user__first_name="Ola"
    )
    return {"own": own, "other": other, "own_membership": own_membership, "other_membership": other_membership}


# --- entering ----------------------------------------------------------------------------------------------


def test_an_administrator_logs_in_with_the_login_form_without_is_staff(org):
    user = UserFactory(username="karin")
    make_admin_of(user, org)
    assert not user.is_staff
    client = web(user)
    client.logout()

    response = client.post(f"{ADMIN}/login/", {"username": "karin", "password": "secret-pass-1", "next": f"{ADMIN}/"})

    assert response.status_code == 302
    assert response["Location"] == f"{ADMIN}/"
    assert int(client.session[SESSION_KEY]) == user.pk
    assert client.get(f"{ADMIN}/").status_code == 200


def test_a_plain_member_cannot_enter(org):
    member = MemberFactory(organization=org, user__username="pelle")
    MemberRole.objects.create(member=member, role="instructor")
    client = web(member.user)

    for path in [f"{ADMIN}/", f"{ADMIN}/accounts/member/", f"{ADMIN}/main_api/apitoken/"]:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith(f"{ADMIN}/login/"), path

    client.logout()
    refused = client.post(f"{ADMIN}/login/", {"username": "pelle", "password": "secret-pass-1"})
    assert refused.status_code == 200
    assert refused.context["form"].errors
    assert SESSION_KEY not in client.session


def test_an_administrator_whose_login_is_locked_cannot_enter(org):
    user = UserFactory(locked_login=True)
    make_admin_of(user, org)

    response = web(user).get(f"{ADMIN}/")

    assert response.status_code == 302
    assert response["Location"].startswith(f"{ADMIN}/login/")


def test_a_superuser_enters_without_being_a_member(db):
    response = web(make_superuser()).get(f"{ADMIN}/")

    assert response.status_code == 200


# --- one organization's data ------------------------------------------------------------------------------


def test_an_administrator_sees_only_their_organizations_members_and_memberships(world, admin):
    client = web(admin)

    members = listed(client.get(f"{ADMIN}/accounts/member/"))
    assert world["own"] in members
    assert world["other"] not in members
    assert {member.organization_id for member in members} == {world["own"].organization_id}
    assert listed(client.get(f"{ADMIN}/accounts/membership/")) == [world["own_membership"]]

    # Searching does not reach past the organization either.
    assert listed(client.get(f"{ADMIN}/accounts/member/", {"q": "502"})) == []
    assert listed(client.get(f"{ADMIN}/accounts/member/", {"q": "501"})) == [world["own"]]


def test_another_organizations_member_cannot_be_opened_or_changed(world, admin):
    client = web(admin)
    other = world["other"]

    page = client.get(f"{ADMIN}/accounts/member/{other.pk}/change/")
    assert page.status_code == 302
    assert page["Location"] == f"{ADMIN}/"

    client.post(f"{ADMIN}/accounts/member/{other.pk}/change/", {"member_number": "999", "active": "on"})
    client.post(f"{ADMIN}/accounts/member/{other.pk}/delete/", {"post": "yes"})
    client.post(
        f"{ADMIN}/accounts/member/", {"action": "delete_selected", "_selected_action": [other.pk], "post": "yes"}
    )
    other.refresh_from_db()
    assert other.member_number == "502"


def test_the_member_list_shows_number_name_membership_and_active(world, admin):
    response = web(admin).get(f"{ADMIN}/accounts/member/")

    html = response.content.decode()
    assert list(response.context["cl"].list_display)[1:] == ["member_number", "name", "membership", "active"]
    assert "501" in html and world["own"].user.full_name in html and "Senior" in html
    assert world["other"].user.full_name not in html


def test_a_superuser_sees_both_organizations(world):
    client = web(make_superuser())

    members = set(listed(client.get(f"{ADMIN}/accounts/member/")))
    assert {world["own"], world["other"]} <= members
    assert members == set(Member.objects.all())
    assert set(listed(client.get(f"{ADMIN}/accounts/membership/"))) == {
        world["own_membership"],
        world["other_membership"],
    }
    assert client.get(f"{ADMIN}/accounts/member/{world['other'].pk}/change/").status_code == 200


def test_a_new_membership_gets_the_current_organization_and_no_organization_field(org, other_org, admin):
    client = web(admin)

    form_page = client.get(f"{ADMIN}/accounts/membership/add/")
    assert "organization" not in form_page.context["adminform"].form.fields
    # Even when one is sent, it is not taken.
    response = client.post(f"{ADMIN}/accounts/membership/add/", {"name": "Family", "organization": other_org.pk})

    assert response.status_code == 302
    assert Membership.objects.get(name="Family").organization == org


def test_member_choices_offer_only_the_organizations_memberships_and_groups(world, org, other_org, admin):
    own_group = UserGroupFactory(organization=org, name="Pilots")
    other_group = UserGroupFactory(organization=other_org, name="Bergen pilots")
    client = web(admin)
    url = f"{ADMIN}/accounts/member/{world['own'].pk}/change/"

    form = client.get(url).context["adminform"].form
    assert list(form.fields["membership"].queryset) == [world["own_membership"]]
    assert list(form.fields["user_groups"].queryset) == [own_group]

    response = client.post(url, {"member_number": "501", "active": "on", "membership": world["other_membership"].pk})
    assert response.status_code == 200
    assert "membership" in response.context["adminform"].form.errors
    response = client.post(url, {"member_number": "501", "active": "on", "user_groups": [other_group.pk]})
    assert "user_groups" in response.context["adminform"].form.errors
    world["own"].refresh_from_db()
    assert world["own"].membership == world["own_membership"]
    assert list(world["own"].user_groups.all()) == []


def test_member_numbers_stay_unique_within_the_organization_only(world, org, admin):
    second = MemberFactory(organization=org, member_number="777")
    client = web(admin)
    url = f"{ADMIN}/accounts/member/{second.pk}/change/"

    taken = client.post(url, {"member_number": "501", "active": "on", **NO_EXPIRY_ROWS})
    assert taken.status_code == 200
    assert taken.context["adminform"].form.errors
    # 502 is the other club's number: free here.
    assert client.post(url, {"member_number": "502", "active": "on", **NO_EXPIRY_ROWS}).status_code == 302
    second.refresh_from_db()
    assert second.member_number == "502"


def test_roles_are_checkboxes_saved_through_member_set_roles(world, admin):
    member = world["own"]
    MemberRole.objects.create(member=member, role="student")
    client = web(admin)
    url = f"{ADMIN}/accounts/member/{member.pk}/change/"

    assert client.get(url).context["adminform"].form.initial["roles"] == ["student"]
    roles = ["instructor", "board_member"]
    response = client.post(url, {"member_number": "501", "active": "on", "roles": roles, **NO_EXPIRY_ROWS})

    assert response.status_code == 302
    assert set(member.roles.values_list("role", flat=True)) == {"instructor", "board_member"}
    # The new roles give the new rights: a member made administrator may enter.
    client.post(url, {"member_number": "501", "active": "on", "roles": ["admin"], **NO_EXPIRY_ROWS})
    assert web(member.user).get(f"{ADMIN}/").status_code == 200


def test_organization_administrators_may_open_the_add_member_page(org, admin):
    # Adding goes through user_create (tests/test_admin_members.py).
    assert web(admin).get(f"{ADMIN}/accounts/member/add/").status_code == 200


# --- the organization itself -------------------------------------------------------------------------------


def test_an_administrator_changes_only_their_own_organizations_settings(org, other_org, admin):
    client = web(admin)

    assert listed(client.get(f"{ADMIN}/accounts/organization/")) == [org]
    assert client.get(f"{ADMIN}/accounts/organization/{other_org.pk}/change/").status_code == 302
    assert client.get(f"{ADMIN}/accounts/organization/add/").status_code == 403
    assert client.get(f"{ADMIN}/accounts/organization/{org.pk}/delete/").status_code == 403

    page = client.get(f"{ADMIN}/accounts/organization/{org.pk}/change/")
    data = {**page.context["adminform"].form.initial, "name": "Västerås FK", "is_trial": "on"}
    data = {key: ("" if value is None else value) for key, value in data.items()}
    data.update({"app_settings-TOTAL_FORMS": "0", "app_settings-INITIAL_FORMS": "0"})  # the app settings inline
    response = client.post(f"{ADMIN}/accounts/organization/{org.pk}/change/", data)

    assert response.status_code == 302, response.context["adminform"].form.errors
    org.refresh_from_db()
    assert org.name == "Västerås FK"
    assert org.is_trial is False  # support's business
    assert Organization.objects.get(pk=other_org.pk).name == "Bergen Flyklubb"


def test_a_superuser_adds_and_deletes_organizations(org):
    client = web(make_superuser())

    assert client.get(f"{ADMIN}/accounts/organization/add/").status_code == 200
    assert client.post(f"{ADMIN}/accounts/organization/{org.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not Organization.objects.filter(pk=org.pk).exists()


# --- switching organization --------------------------------------------------------------------------------


@pytest.fixture
def two_club_admin(org, other_org, admin):
    make_admin_of(admin, other_org)
    MemberFactory(organization=org, member_number="11")
    MemberFactory(organization=other_org, member_number="22")
    return admin


def numbers(client) -> set[str]:
    return {member.member_number for member in listed(client.get(f"{ADMIN}/accounts/member/"))}


def test_the_index_offers_the_switch_to_an_administrator_of_two(two_club_admin):
    html = web(two_club_admin).get(f"{ADMIN}/").content.decode()

    assert 'id="switch-organization-form"' in html
    assert "Västerås Flygklubb" in html and "Bergen Flyklubb" in html
    switch_page = web(two_club_admin).get(f"{ADMIN}/organization/switch/")
    assert switch_page.status_code == 200
    assert 'id="switch-organization-form"' in switch_page.content.decode()


def test_the_index_offers_no_switch_to_an_administrator_of_one(admin):
    assert 'id="switch-organization-form"' not in web(admin).get(f"{ADMIN}/").content.decode()


def test_the_switch_changes_the_current_organization(org, other_org, two_club_admin):
    client = web(two_club_admin)
    admins_numbers = set(Member.objects.filter(user=two_club_admin).values_list("member_number", flat=True))

    response = client.post(f"{ADMIN}/organization/switch/", {"organization": org.pk})
    assert response.status_code == 302
    assert client.session[CURRENT_ORGANIZATION_SESSION_KEY] == org.pk
    in_org = numbers(client)
    assert "11" in in_org and "22" not in in_org

    client.post(f"{ADMIN}/organization/switch/", {"organization": other_org.pk})
    in_other = numbers(client)
    assert "22" in in_other and "11" not in in_other
    assert in_org | in_other == {"11", "22"} | admins_numbers
    assert listed(client.get(f"{ADMIN}/accounts/organization/")) == [other_org]


def test_the_switch_refuses_an_organization_not_administered(org, other_org, two_club_admin):
    third = OrganizationFactory(name="Third club")
    member = MemberFactory(organization=third, member_number="33")
    client = web(two_club_admin)
    client.post(f"{ADMIN}/organization/switch/", {"organization": org.pk})

    response = client.post(f"{ADMIN}/organization/switch/", {"organization": third.pk})

    assert response.status_code == 403
    assert client.session[CURRENT_ORGANIZATION_SESSION_KEY] == org.pk
    assert member not in listed(client.get(f"{ADMIN}/accounts/member/"))
    # A membership only (no admin role) is not enough either.
    MemberFactory(organization=third, user=two_club_admin)
    assert client.post(f"{ADMIN}/organization/switch/", {"organization": third.pk}).status_code == 403


def test_losing_the_admin_role_ends_access_to_that_organization(org, other_org, two_club_admin):
    client = web(two_club_admin)
    client.post(f"{ADMIN}/organization/switch/", {"organization": other_org.pk})

    MemberRole.objects.filter(member__user=two_club_admin, member__organization=other_org).delete()

    # The session's choice is no longer administered: back to the one organization left.
    assert listed(client.get(f"{ADMIN}/accounts/organization/")) == [org]


# --- the index ----------------------------------------------------------------------------------------------


def test_the_index_lists_authorization_under_system_settings(admin):
    response = web(admin).get(f"{ADMIN}/")

    sections = {app["name"]: [entry["name"] for entry in app["models"]] for app in response.context["app_list"]}
    assert sections["System settings"] == ["Authorization"]
    assert not any("API tokens" in names for names in sections.values())
    assert f"{ADMIN}/main_api/apitoken/" in response.content.decode()


def test_every_model_admin_of_the_site_is_organization_scoped():
    from django.contrib import admin

    from accounts.models import UserGroup
    from main_api.models import ApiToken

    for model in [Organization, Member, Membership, UserGroup, ApiToken]:
        assert isinstance(admin.site._registry[model], OrganizationScopedAdmin), model


def test_the_admin_login_counts_in_the_shared_failed_login_limit(db, frozen_time):
    from django.test import Client

    from tests.factories import make_admin

    admin_user = make_admin(OrganizationFactory())
    client = Client()
    for _ in range(5):
        response = client.post("/admin/login/", {"username": admin_user.username, "password": "wrong"})
        assert response.status_code == 200
        assert not response.wsgi_request.user.is_authenticated
    response = client.post("/admin/login/", {"username": admin_user.username, "password": "secret-pass-1"})
    assert SESSION_KEY not in client.session
    assert "Too many failed logins" in response.content.decode()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("accounts/apitoken/", "main_api/apitoken/"),
        (
            "accounts/apitoken/7/change/?_changelist_filters=q%3Dx",
            "main_api/apitoken/7/change/?_changelist_filters=q%3Dx",
        ),
        ("accounts/appclient/add/", "mobile_api/appclient/add/"),
        ("accounts/blockedaddress/", "mobile_api/blockedaddress/"),
    ],
)
def test_pages_of_models_that_left_accounts_redirect_to_their_new_address(client, old, new):
    """Bookmarks of the API token, app client and blocked address pages from before they left accounts."""
    response = client.get(f"{ADMIN}/{old}", secure=True)
    assert response.status_code == 301
    assert response["Location"] == f"{ADMIN}/{new}"
