"""The people of a page of bookings (bookings.selectors.people_of, read by the APIs through statements compiled
once): each login once, its first email address by position, its mobile as text, both null where the person
hides them; with member numbers, every membership's in organization order."""

import pytest

from accounts.models import UserEmail
from bookings.api import mobile_presenters, presenters
from bookings.selectors import people_from_rows, people_of
from tests.factories import MemberFactory, OrganizationFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    """Three logins: two addresses (the second made first), a hidden address, none at all."""
    two = UserFactory(first_name="Two", last_name="Addresses", mobile_country_code="46", mobile_number="701234567")
    UserEmail.objects.create(user=two, position=1, address="second@example.se")
    UserEmail.objects.create(user=two, position=0, address="first@example.se")
    hidden = UserFactory(first_name="Hidden", email_visible=False, mobile_visible=False, mobile_number="709")
    UserEmail.objects.create(user=hidden, position=0, address="hidden@example.se")
    none = UserFactory(first_name="No", last_name="Address")
    return two, hidden, none


def test_each_person_once_with_the_first_address_and_what_they_show(people):
    two, hidden, none = people

    found = dict(people_of([two.pk, hidden.pk, none.pk, two.pk]))

    assert found == {
        two.pk: {"id": two.pk, "name": "Two Addresses", "email": "first@example.se", "mobile": "+46 701234567"},
        hidden.pk: {"id": hidden.pk, "name": "Hidden Svensson", "email": None, "mobile": None},
        none.pk: {"id": none.pk, "name": "No Address", "email": None, "mobile": None},
    }


def test_member_numbers_of_every_membership_in_organization_order(people):
    two, hidden, none = people
    first, second = OrganizationFactory(), OrganizationFactory()
    MemberFactory(user=two, organization=second, member_number="B-2")  # made before the first's
    MemberFactory(user=two, organization=first, member_number="A-1")
    MemberFactory(user=hidden, organization=second, member_number="")

    found = dict(people_of([two.pk, hidden.pk, none.pk], member_numbers=True))

    assert list(found[two.pk]["numbers"].items()) == [(first.pk, "A-1"), (second.pk, "B-2")]
    assert found[two.pk]["email"] == "first@example.se"  # the memberships' rows do not change the address
    assert found[hidden.pk]["numbers"] == {second.pk: ""}
    assert found[none.pk]["numbers"] == {}
    assert "numbers" not in dict(people_of([two.pk]))[two.pk]


@pytest.mark.parametrize("module", [presenters, mobile_presenters])
def test_the_apis_compiled_statements_read_the_same_people(people, module):
    """The presenters read people_rows by a statement compiled once (KeyedRows on PostgreSQL)."""
    two, hidden, none = people
    MemberFactory(user=two, member_number="7")
    keys = [none.pk, two.pk, hidden.pk]
    numbers = module is mobile_presenters

    for _ in range(2):  # compiled on the first call, reused on the second
        assert people_from_rows(module.PEOPLE.rows(keys), member_numbers=numbers) == people_of(
            keys, member_numbers=numbers
        )
