"""Factories of the operations data: objects, remarks, maintenance, bookings, flights, flight types and
transactions. Each makes a row of the organization given as `organization=` (or of its object's)."""

import datetime as dt
from decimal import Decimal

import factory

from bookings.models import Booking
from economy.models import Account, CostCenter, Project, Transaction
from flightlog.models import Airport, FlightApproval, FlightLogEntry, FlightType
from objects_app.models import BookableObject, Category, MaintenanceItem, ObjectShare, Remark, RemarkEvent
from tests.factories import MemberFactory, OrganizationFactory, UserFactory

UTC = dt.UTC


class ObjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BookableObject

    organization = factory.SubFactory(OrganizationFactory)
    category = Category.AIRCRAFT
    registration = factory.Sequence(lambda n: f"SE-{chr(65 + n // 676 % 26)}{chr(65 + n // 26 % 26)}{chr(65 + n % 26)}")
    type_designator = "C172"
    type_name = "Cessna 172 Skyhawk"


class EquipmentFactory(ObjectFactory):
    category = Category.EQUIPMENT
    registration = factory.Sequence(lambda n: f"Headset {n}")
    type_designator = ""
    type_name = ""


class ObjectShareFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ObjectShare

    object = factory.SubFactory(ObjectFactory)
    organization = factory.SubFactory(OrganizationFactory)


class MaintenanceItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MaintenanceItem

    object = factory.SubFactory(ObjectFactory)
    name = factory.Sequence(lambda n: f"50-hour check {n}")
    due_date = dt.date(2027, 3, 1)


class RemarkFactory(factory.django.DjangoModelFactory):
    """A remark on an object; `organization=` makes the object there."""

    class Meta:
        model = Remark
        exclude = ("organization",)

    organization = factory.SubFactory(OrganizationFactory)
    object = factory.SubFactory(ObjectFactory, organization=factory.SelfAttribute("..organization"))
    description = factory.Sequence(lambda n: f"Left brake squeaks ({n})")
    category = 1
    created_at = dt.datetime(2026, 11, 1, 9, 30, tzinfo=UTC)
    created_by = factory.SubFactory(UserFactory)


class RemarkEventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RemarkEvent

    remark = factory.SubFactory(RemarkFactory)
    action = "commented"
    text = "Checked, ok for now"
    at = dt.datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    by = factory.SubFactory(UserFactory)


class BookingFactory(factory.django.DjangoModelFactory):
    """A booking of an object of `organization=`, by a member of it."""

    class Meta:
        model = Booking
        exclude = ("organization",)

    organization = factory.SubFactory(OrganizationFactory)
    object = factory.SubFactory(ObjectFactory, organization=factory.SelfAttribute("..organization"))
    user = factory.LazyAttribute(lambda o: MemberFactory(organization=o.organization).user)
    start_at = dt.datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    end_at = dt.datetime(2026, 11, 20, 11, 0, tzinfo=UTC)
    type = "PRIV"
    created_at = dt.datetime(2026, 11, 1, 8, 0, tzinfo=UTC)


class AirportFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Airport
        django_get_or_create = ("icao",)

    icao = "ESSB"
    name = "Stockholm Bromma"


class FlightTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FlightType

    organization = factory.SubFactory(OrganizationFactory)
    name = factory.Sequence(lambda n: f"Private {n}")


class FlightApprovalFactory(factory.django.DjangoModelFactory):
    """A member of `organization=` approved on an object of it."""

    class Meta:
        model = FlightApproval
        exclude = ("organization",)

    organization = factory.SubFactory(OrganizationFactory)
    member = factory.SubFactory(MemberFactory, organization=factory.SelfAttribute("..organization"))
    object = factory.SubFactory(ObjectFactory, organization=factory.SelfAttribute("..organization"))


class FlightFactory(factory.django.DjangoModelFactory):
    """A flight on an object of `organization=`, flown by a member of it, 10:00-11:10 UTC on 2026-11-20."""

    class Meta:
        model = FlightLogEntry
        exclude = ("organization",)

    organization = factory.SubFactory(OrganizationFactory)
    object = factory.SubFactory(ObjectFactory, organization=factory.SelfAttribute("..organization"))
    date = dt.date(2026, 11, 20)
    departure_airport = factory.SubFactory(AirportFactory)
    arrival_airport = factory.SubFactory(AirportFactory)
    blockoff_at = dt.datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
    takeoff_at = dt.datetime(2026, 11, 20, 10, 5, tzinfo=UTC)
    landing_at = dt.datetime(2026, 11, 20, 11, 5, tzinfo=UTC)
    blockon_at = dt.datetime(2026, 11, 20, 11, 10, tzinfo=UTC)
    departure_tachometer = Decimal("1234.50")
    arrival_tachometer = Decimal("1235.60")
    pilot = factory.SubFactory(MemberFactory, organization=factory.SelfAttribute("..organization"))
    created_at = dt.datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


class AccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Account

    organization = factory.SubFactory(OrganizationFactory)
    number = factory.Sequence(lambda n: f"{1510 + n}")
    name = factory.Sequence(lambda n: f"Account {n}")


class CostCenterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CostCenter

    organization = factory.SubFactory(OrganizationFactory)
    code = factory.Sequence(lambda n: f"CC{n}")
    name = factory.Sequence(lambda n: f"Cost center {n}")


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    organization = factory.SubFactory(OrganizationFactory)
    code = factory.Sequence(lambda n: f"P{n}")
    name = factory.Sequence(lambda n: f"Project {n}")


class TransactionFactory(factory.django.DjangoModelFactory):
    """A transaction of a member of `organization=`."""

    class Meta:
        model = Transaction

    organization = factory.SubFactory(OrganizationFactory)
    user = factory.LazyAttribute(lambda o: MemberFactory(organization=o.organization).user)
    date = dt.date(2026, 11, 20)
    amount = Decimal("-1250.00")
    comment = factory.Sequence(lambda n: f"Flight {n}")
