"""The organization website's member pages: listed, searched, added, changed and deleted by the same rules as
the Main API, because the pages save through the same services (user_create, user_update, user_delete,
member_set_roles). A refusal comes back as errors on the page and nothing is saved."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth.hashers import is_password_usable

from accounts.models import Member, MemberRole, User, UserEmail
from economy.models import Transaction
from tests.admin_fixtures import ADMIN, form_data, listed, make_superuser, page_errors, shown_messages, web
from tests.factories import MemberFactory, MembershipFactory, UserGroupFactory

MEMBERS = f"{ADMIN}/accounts/member"


@pytest.fixture
def senior(org):
    return MembershipFactory(organization=org, name="Senior")


@pytest.fixture
def client(admin):
    return web(admin)


def own_login(org, name: str, **fields):
    """A member whose login the organization made (`<org id>-...`), so it may change the name and contact data."""
    return MemberFactory(organization=org, user__username=f"{org.pk}-{name}", **fields)


def change(client, member, **values):
    """Post the member's change page as a browser would, with `values` changed."""
    url = f"{MEMBERS}/{member.pk}/change/"
    data = form_data(client.get(url))
    data.update(values)
    return client.post(url, data)


def add(client, **values):
    data = form_data(client.get(f"{MEMBERS}/add/"))
    data.update(values)
    return client.post(f"{MEMBERS}/add/", data)


# --- the list ------------------------------------------------------------------------------------------------


@pytest.fixture
def listed_world(org, other_org, senior):
    junior = MembershipFactory(organization=org, name="Junior")
    anna = own_login(org, "anna", member_number="101", membership=senior, user__first_name="Anna")
    UserEmail.objects.create(user=anna.user, position=0, address="anna.berg@example.se")
    bo = MemberFactory(organization=org, member_number="102", membership=junior, active=False, user__first_name="Bo")
    cia = MemberFactory(organization=org, member_number="103", membership=senior, locked=True, user__first_name="Cia")
    stranger = MemberFactory(organization=other_org, member_number="101", user__first_name="Anna")
    UserEmail.objects.create(user=stranger.user, position=0, address="anna.berg@example.no")
    return {"anna": anna, "bo": bo, "cia": cia, "stranger": stranger, "junior": junior}


def test_members_are_found_by_name_username_member_number_and_email(client, org, listed_world):
    anna = listed_world["anna"]

    def found(query):
        return listed(client.get(f"{MEMBERS}/", {"q": query}))

    assert found("Anna") == [anna]
    assert found(f"{org.pk}-anna") == [anna]
    assert found("101") == [anna]
    assert found("anna.berg@example") == [anna]
    assert found("example.no") == []  # the other club's member's address
    assert found("Bo") == [listed_world["bo"]]


def test_members_are_filtered_by_membership_active_and_locked(client, senior, listed_world):
    def numbers(params):
        return sorted(member.member_number for member in listed(client.get(f"{MEMBERS}/", params)))

    assert numbers({"membership__id__exact": senior.pk}) == ["101", "103"]
    assert numbers({"membership__id__exact": listed_world["junior"].pk}) == ["102"]
    assert numbers({"active__exact": "0"}) == ["102"]
    assert numbers({"locked__exact": "1"}) == ["103"]
    # The membership filter offers only the organization's memberships.
    page = client.get(f"{MEMBERS}/")
    membership_filter = next(f for f in page.context["cl"].filter_specs if f.title == "membership")
    assert {label for _, label in membership_filter.lookup_choices} == {"Senior", "Junior"}


# --- adding ----------------------------------------------------------------------------------------------------


def test_adding_a_member_makes_the_prefixed_login_and_the_next_member_number(client, org, senior):
    MemberFactory(organization=org, member_number="10041")
    group = UserGroupFactory(organization=org, name="Pilots")

    response = add(
        client,
        username=f"{org.pk}-anna",
        first_name="Anna",
        last_name_particle="af",
        last_name="Berg",
        membership=str(senior.pk),
        user_groups=[str(group.pk)],
        roles=["instructor"],
        email_1="anna@example.se",
        street_address_1="Flygfältet 1",
        postal_code="721 31",
        city="Västerås",
        mobile_country_code="+46",
        mobile_initial_number="70",
        mobile_number="1234567",
        personal_identification_number="19800101-1234",
        emergency_contact_name="Bo Berg",
        emergency_contact_relation="Brother",
        annual_fee="450.00",
        external_customer_number="K-77",
        misc_info="Glider pilot",
        access_card_number="A-1",
    )

    assert response.status_code == 302, page_errors(response)
    member = Member.objects.get(user__username=f"{org.pk}-anna")
    user = member.user
    assert member.organization == org
    assert member.member_number == "10042"  # the highest number plus one
    assert member.active is True
    assert member.membership == senior
    assert list(member.user_groups.all()) == [group]
    assert list(member.roles.values_list("role", flat=True)) == ["instructor"]
    assert (member.annual_fee, member.external_customer_number) == (Decimal("450.00"), "K-77")
    assert (member.misc_info, member.access_card_number) == ("Glider pilot", "A-1")
    assert user.name == "Anna af Berg"
    assert [email.address for email in user.emails.all()] == ["anna@example.se"]
    assert (user.street_address_1, user.postal_code, user.city) == ("Flygfältet 1", "721 31", "Västerås")
    assert (user.mobile_country_code, user.mobile_initial_number, user.mobile_number) == ("46", "70", "1234567")
    assert user.personal_identification_number == "19800101-1234"
    assert (user.emergency_contact_name, user.emergency_contact_relation) == ("Bo Berg", "Brother")
    assert not is_password_usable(user.password)  # the member sets one with 'Reset my password'
    # The new member's page can be opened.
    assert client.get(f"{MEMBERS}/{member.pk}/change/").status_code == 200


def test_the_add_form_offers_the_organization_prefix_and_takes_no_organization(client, org, other_org, senior):
    form = client.get(f"{MEMBERS}/add/").context["adminform"].form
    assert form.initial["username"] == f"{org.pk}-"
    assert "organization" not in form.fields

    response = add(
        client,
        username=f"{org.pk}-per",
        first_name="Per",
        last_name="Ek",
        membership=str(senior.pk),
        organization=str(other_org.pk),
    )

    assert response.status_code == 302, page_errors(response)
    assert Member.objects.get(user__username=f"{org.pk}-per").organization == org


def test_a_username_without_the_prefix_or_in_use_is_refused_and_nothing_is_made(client, org, other_org, senior):
    MemberFactory(organization=other_org, user__username=f"{org.pk}-TAKEN")
    users_before = User.objects.count()

    wrong_prefix = add(client, username=f"{other_org.pk}-anna", first_name="Anna", last_name="B", membership=senior.pk)
    in_use = add(client, username=f"{org.pk}-taken", first_name="Anna", last_name="B", membership=str(senior.pk))

    assert f"must start with {org.pk}-" in " ".join(page_errors(wrong_prefix)["username"])
    errors = page_errors(in_use)
    assert errors["username"] == ["The username is in use (letter case does not count)."]
    assert errors[""] == ["In use: username."]
    assert User.objects.count() == users_before
    assert not Member.objects.filter(organization=org, user__username__iendswith="anna").exists()


def test_a_member_number_in_use_is_refused_by_the_service(client, org, senior):
    MemberFactory(organization=org, member_number="500")

    response = add(
        client,
        username=f"{org.pk}-eva",
        first_name="Eva",
        last_name="Ek",
        membership=str(senior.pk),
        member_number="500",
    )

    assert page_errors(response)["member_number"] == ["The member number is in use in the organization."]
    assert not User.objects.filter(username=f"{org.pk}-eva").exists()


def test_a_trial_organization_with_five_active_members_gets_no_sixth(client, org, senior):
    org.is_trial = True
    org.save()
    MemberFactory.create_batch(4, organization=org)  # with the administrator: five active members
    sleeper = own_login(org, "sleeper", active=False)
    users_before = User.objects.count()

    added = add(client, username=f"{org.pk}-six", first_name="Six", last_name="Th", membership=str(senior.pk))
    woken = change(client, sleeper, active="on")

    assert page_errors(added)[""] == ["A trial organization has at most 5 active users."]
    assert User.objects.count() == users_before
    assert page_errors(woken)[""] == ["A trial organization has at most 5 active users."]
    sleeper.refresh_from_db()
    assert sleeper.active is False
    # Deactivating one makes room.
    other = Member.objects.filter(organization=org, active=True).exclude(user__members__roles__role="admin").first()
    data = form_data(client.get(f"{MEMBERS}/{other.pk}/change/"))
    data.pop("active")
    assert client.post(f"{MEMBERS}/{other.pk}/change/", data).status_code == 302
    assert change(client, sleeper, active="on").status_code == 302
    sleeper.refresh_from_db()
    assert sleeper.active is True


def test_support_adds_a_member_in_the_organization_it_chooses(org, senior):
    client = web(make_superuser())

    response = add(
        client,
        organization=str(org.pk),
        username=f"{org.pk}-sam",
        first_name="Sam",
        last_name="S",
        membership=str(senior.pk),
    )

    assert response.status_code == 302, page_errors(response)
    assert Member.objects.get(user__username=f"{org.pk}-sam").organization == org


# --- changing --------------------------------------------------------------------------------------------------


def test_the_login_made_by_the_organization_has_its_name_and_contact_data_changed(client, org):
    member = own_login(org, "anna", user__first_name="Anna", user__last_name="Berg")
    UserEmail.objects.create(
        user=member.user, position=0, address="anna@example.se", invalid=True, invalid_reason="Mailbox full"
    )
    UserEmail.objects.create(
        user=member.user, position=1, address="old@example.se", invalid=True, invalid_reason="Unknown user"
    )

    response = change(
        client,
        member,
        first_name="Annika",
        email_2="new@example.se",
        street_address_1="Hangarvägen 2",
        city="Uppsala",
        phone_home="021-123",
        mobile_country_code="0047",
        personal_identification_number="19790101-0000",
        emergency_contact_phone="070-1",
        misc_info="Tow pilot",
        internal_notes="Paid in cash",
        access_card_code="1234",
        access_card_expiry_date="2027-06-30",
        annual_fee="300",
        external_customer_number="C-9",
    )

    assert response.status_code == 302, page_errors(response)
    member.refresh_from_db()
    user = User.objects.get(pk=member.user_id)
    assert user.name == "Annika Berg"
    assert (user.street_address_1, user.city, user.phone_home, user.mobile_country_code) == (
        "Hangarvägen 2",
        "Uppsala",
        "021-123",
        "47",
    )
    assert (user.personal_identification_number, user.emergency_contact_phone) == ("19790101-0000", "070-1")
    # The unchanged address keeps its invalid mark; the changed one starts valid (the service's rule).
    assert [(e.address, e.invalid, e.invalid_reason) for e in user.emails.all()] == [
        ("anna@example.se", True, "Mailbox full"),
        ("new@example.se", False, ""),
    ]
    assert (member.misc_info, member.internal_notes, member.access_card_code) == ("Tow pilot", "Paid in cash", "1234")
    assert member.access_card_expiry_date == dt.date(2027, 6, 30)
    assert (member.annual_fee, member.external_customer_number) == (Decimal("300.00"), "C-9")


def test_the_page_shows_invalid_marks_and_the_balance_read_only(client, org):
    member = own_login(org, "anna")
    UserEmail.objects.create(
        user=member.user, position=0, address="anna@example.se", invalid=True, invalid_reason="Mailbox full"
    )
    for amount in ("-200.00", "50.50"):
        Transaction.objects.create(
            organization=org, user=member.user, date=dt.date(2026, 1, 1), amount=amount, comment="Flight"
        )

    page = client.get(f"{MEMBERS}/{member.pk}/change/")

    html = page.content.decode()
    assert "anna@example.se: Mailbox full" in html
    assert "-149.50 kr" in html
    assert "balance" not in page.context["adminform"].form.fields


def test_the_name_and_contact_data_of_a_login_made_elsewhere_are_refused_and_nothing_is_saved(client, org, other_org):
    member = MemberFactory(
        organization=org, user__username=f"{other_org.pk}-ola", user__first_name="Ola", misc_info="before"
    )
    page = client.get(f"{MEMBERS}/{member.pk}/change/")
    assert "made by another organization" in page.content.decode()

    response = change(client, member, first_name="Olav", city="Bergen", misc_info="after", annual_fee="99")

    errors = page_errors(response)
    assert errors["first_name"] == ["first_name cannot be changed."]
    assert errors["city"] == ["address cannot be changed."]
    assert "cannot change first_name, address" in errors[""][0]
    member.refresh_from_db()
    user = User.objects.get(pk=member.user_id)
    assert (user.first_name, user.city) == ("Ola", "")
    assert (member.misc_info, member.annual_fee) == ("before", None)
    # The identification number and emergency contact belong to the login as well.
    refused = page_errors(change(client, member, personal_identification_number="1", emergency_contact_name="X"))
    assert refused["personal_identification_number"] == ["personal_identification_number cannot be changed."]
    assert refused["emergency_contact_name"] == ["emergency_contact cannot be changed."]
    # What belongs to the club's member record can be changed.
    assert change(client, member, misc_info="after", annual_fee="99").status_code == 302
    member.refresh_from_db()
    assert (member.misc_info, member.annual_fee) == ("after", Decimal("99.00"))


def test_a_wrong_mobile_country_code_is_the_services_field_error(client, org):
    member = own_login(org, "anna")

    response = change(client, member, mobile_country_code="4x6", city="Sala")

    assert page_errors(response)["mobile_country_code"] == [
        "phone.mobile.country_code must be written like 46, +46 or 0046."
    ]
    assert User.objects.get(pk=member.user_id).city == ""


def test_roles_are_set_and_removed_through_member_set_roles(client, org):
    member = own_login(org, "anna")
    MemberRole.objects.create(member=member, role="student")

    assert change(client, member, roles=["instructor", "maintenance"]).status_code == 302
    assert set(member.roles.values_list("role", flat=True)) == {"instructor", "maintenance"}
    assert change(client, member, roles=[]).status_code == 302
    assert not member.roles.exists()


def test_membership_and_groups_change_but_only_to_the_organizations_own(client, org, other_org, senior):
    member = own_login(org, "anna")
    group = UserGroupFactory(organization=org)
    foreign_group = UserGroupFactory(organization=other_org)

    assert change(client, member, membership=str(senior.pk), user_groups=[str(group.pk)]).status_code == 302
    refused = change(client, member, user_groups=[str(foreign_group.pk)])

    assert "user_groups" in page_errors(refused)
    member.refresh_from_db()
    assert member.membership == senior
    assert list(member.user_groups.all()) == [group]


# --- deleting --------------------------------------------------------------------------------------------------


def test_an_administrator_is_not_deleted(client, org, admin):
    member = Member.objects.get(user=admin, organization=org)

    response = client.post(f"{MEMBERS}/{member.pk}/delete/", {"post": "yes"}, follow=True)

    assert "Nothing was deleted. An administrator of the organization cannot be deleted." in shown_messages(response)
    assert Member.objects.filter(pk=member.pk).exists()


def test_a_member_with_a_balance_is_not_deleted(client, org):
    member = own_login(org, "anna")
    Transaction.objects.create(
        organization=org, user=member.user, date=dt.date(2026, 1, 1), amount="-10.00", comment="Fee"
    )

    response = client.post(f"{MEMBERS}/{member.pk}/delete/", {"post": "yes"}, follow=True)

    assert "Nothing was deleted. A user whose balance is not zero cannot be deleted." in shown_messages(response)
    assert Member.objects.filter(pk=member.pk).exists()


def test_a_member_is_deleted_with_the_login_when_no_other_club_has_it(client, org, other_org):
    alone = own_login(org, "anna")
    shared = MemberFactory(organization=org)
    MemberFactory(organization=other_org, user=shared.user)

    assert client.get(f"{MEMBERS}/{alone.pk}/delete/").status_code == 200
    response = client.post(f"{MEMBERS}/{alone.pk}/delete/", {"post": "yes"})
    client.post(f"{MEMBERS}/{shared.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Member.objects.filter(pk__in=[alone.pk, shared.pk]).exists()
    assert not User.objects.filter(pk=alone.user_id).exists()
    assert Member.objects.filter(user=shared.user, organization=other_org).exists()


def test_deleting_a_selection_is_all_or_nothing(client, org, admin):
    plain = own_login(org, "anna")
    admin_member = Member.objects.get(user=admin, organization=org)

    response = client.post(
        f"{MEMBERS}/",
        {"action": "delete_selected", "_selected_action": [plain.pk, admin_member.pk], "post": "yes"},
        follow=True,
    )

    assert any("cannot be deleted" in message for message in shown_messages(response))
    assert Member.objects.filter(pk__in=[plain.pk, admin_member.pk]).count() == 2
    client.post(f"{MEMBERS}/", {"action": "delete_selected", "_selected_action": [plain.pk], "post": "yes"})
    assert not Member.objects.filter(pk=plain.pk).exists()


# --- one organization's members only --------------------------------------------------------------------------


def test_another_organizations_member_is_neither_listed_nor_reachable(client, org, other_org):
    stranger = MemberFactory(organization=other_org, user__username=f"{other_org.pk}-ola", user__first_name="Ola")

    assert stranger not in listed(client.get(f"{MEMBERS}/", {"q": "Ola"}))
    for url in [f"{MEMBERS}/{stranger.pk}/change/", f"{MEMBERS}/{stranger.pk}/delete/"]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"] == f"{ADMIN}/", url
    client.post(f"{MEMBERS}/{stranger.pk}/change/", {"first_name": "Hacked", "member_number": "1"})
    client.post(f"{MEMBERS}/{stranger.pk}/delete/", {"post": "yes"})
    client.post(f"{MEMBERS}/", {"action": "delete_selected", "_selected_action": [stranger.pk], "post": "yes"})

    stranger.refresh_from_db()
    assert User.objects.get(pk=stranger.user_id).first_name == "Ola"


def test_memberships_and_groups_are_listed_searched_and_changed_per_organization(client, org, other_org, senior):
    MembershipFactory(organization=other_org, name="Senior")
    own_group = UserGroupFactory(organization=org, name="Pilots")
    other_group = UserGroupFactory(organization=other_org, name="Pilots")
    own_login(org, "anna", membership=senior)

    memberships = listed(client.get(f"{ADMIN}/accounts/membership/", {"q": "Senior"}))
    assert memberships == [senior]
    assert memberships[0].member_total == 1
    assert listed(client.get(f"{ADMIN}/accounts/usergroup/", {"q": "Pilots"})) == [own_group]
    assert client.post(f"{ADMIN}/accounts/usergroup/{own_group.pk}/change/", {"name": "Tow pilots"}).status_code == 302
    assert client.get(f"{ADMIN}/accounts/usergroup/{other_group.pk}/change/").status_code == 302
    client.post(f"{ADMIN}/accounts/usergroup/{other_group.pk}/change/", {"name": "Hacked"})
    own_group.refresh_from_db()
    other_group.refresh_from_db()
    assert (own_group.name, other_group.name) == ("Tow pilots", "Pilots")
