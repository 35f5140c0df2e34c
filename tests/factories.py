import datetime as dt

import factory

from accounts.models import (
    ExpiryDateType,
    Member,
    MemberRole,
    Membership,
    Organization,
    User,
    UserExpiryDate,
    UserGroup,
)


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Club {n}")
    timezone = "Europe/Stockholm"
    reference_icao = "ESSB"
    country = "SE"
    latitude = "59.354372"
    longitude = "17.941650"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Sequence(lambda n: f"First{n}")
    last_name = "Svensson"
    password = factory.PostGenerationMethodCall("set_password", "secret-pass-1")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Membership {n}")


class UserGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserGroup

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Group {n}")


class MemberFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Member

    user = factory.SubFactory(UserFactory)
    organization = factory.SubFactory(OrganizationFactory)
    # Letters keep factory numbers out of the automatic numbering (highest all-digit number + 1).
    member_number = factory.Sequence(lambda n: f"T{n}T")


class ExpiryDateTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ExpiryDateType

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Medical {n}")


class UserExpiryDateFactory(factory.django.DjangoModelFactory):
    """A member's date of a type, both of one organization (give `member__organization`)."""

    class Meta:
        model = UserExpiryDate

    member = factory.SubFactory(MemberFactory)
    type = factory.SubFactory(ExpiryDateTypeFactory, organization=factory.SelfAttribute("..member.organization"))
    expiry_date = dt.date(2027, 6, 30)


def make_admin(organization: Organization, **user_fields) -> User:
    member = MemberFactory(organization=organization, **{f"user__{k}": v for k, v in user_fields.items()})
    MemberRole.objects.create(member=member, role="admin")
    return member.user
