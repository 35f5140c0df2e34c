"""Västerås Flygklubb's members (demo/data/members.yaml) made into logins and member records, with the values
that only need to look real drawn from random.Random with a fixed seed in a fixed order; their expiry dates
(with scans) and transactions, counted from the club's today."""

import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.files.base import ContentFile

from accounts.expiry import NEVER_EXPIRES
from accounts.models import Member, Organization, User, UserEmail, UserExpiryDate
from accounts.services import user_expiry_date_set
from demo.common import make_login, make_member, slug
from demo.datafiles import load
from economy.models import Transaction

SEED = 20260101

# A 1x1 PNG: the "scan" of a certificate on the types that need an image.
SCAN_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0"
    "f01f0005000201a5f1f1b00000000049454e44ae426082"
)
SCAN_DIR = "expiry-dates/demo"


@dataclass
class Person:
    """One member of Västerås Flygklubb (members.yaml says what each field is); what is left out is filled in
    by `Details`."""

    first: str
    last: str
    number: str
    membership: str = "Senior"
    particle: str = ""
    born: str = "1975-06-15"
    roles: tuple = ()
    groups: tuple = ()
    username: str = ""  # default: <club id>-<first>.<last> in ASCII
    active: bool = True
    locked: bool = False
    locked_login: bool = False
    # position -> reason for an address that bounced
    invalid_emails: dict = field(default_factory=dict)
    second_email: bool = False
    no_address: bool = False
    ksak: str | None = None
    misc: str = ""
    notes: str = ""
    card: bool = True
    # type key -> days from today, "never", or (days, has_image) for the types that need an image;
    # None: the default dates of a pilot (or none for a passive member).
    dates: dict | None = None
    transactions: tuple = ()  # (days ago, amount, comment)


_MEMBERS = load("members")
_CLUB = load("clubs")["vasteras"]
PEOPLE = [
    Person(**{key: tuple(value) if isinstance(value, list) else value for key, value in row.items()})
    for row in _MEMBERS["people"]
]
ANNUAL_FEES = _CLUB["memberships"]
VASTERAS_STREETS = tuple(_MEMBERS["streets"])
TOWNS = tuple(tuple(town) for town in _MEMBERS["towns"])
PARTNERS = tuple(_MEMBERS["partners"])
DOMAINS = tuple(_MEMBERS["domains"])


def personnummer(born: str, serial: int) -> str:
    """YYYYMMDD-NNNC with a correct Luhn check digit."""
    digits = born.replace("-", "")[2:] + f"{serial % 1000:03d}"
    total = 0
    for index, digit in enumerate(digits):
        product = int(digit) * (2 if index % 2 == 0 else 1)
        total += product // 10 + product % 10
    return f"{born.replace('-', '')}-{digits[6:]}{(10 - total % 10) % 10}"


class Details:
    """The values that only need to look real, drawn from one fixed seed in a fixed order."""

    def __init__(self):
        self.rng = random.Random(SEED)

    def mobile(self, code: str = "46") -> dict:
        prefix = self.rng.choice(("70", "72", "73", "76", "79"))
        return {
            "mobile_country_code": code,
            "mobile_initial_number": prefix,
            "mobile_number": f"{self.rng.randrange(1_000_000, 10_000_000)}",
        }

    def address(self, index: int) -> dict:
        town, postal = TOWNS[index % len(TOWNS)] if index % 3 else TOWNS[index % 4]
        return {
            "street_address_1": f"{self.rng.choice(VASTERAS_STREETS)} {self.rng.randrange(1, 80)}",
            "street_address_2": f"Lgh {self.rng.randrange(1001, 1404)}" if index % 4 == 1 else "",
            "postal_code": f"{postal} {self.rng.randrange(10, 99)}",
            "city": town,
            "country": "SE",
        }

    def emergency(self, person: Person) -> dict:
        if person.born >= "2006":
            name, relation = f"{self.rng.choice(PARTNERS)} {person.last}", "Parent"
        else:
            last = self.rng.choice((person.last, person.last, "Lind", "Holm", "Ek", "Strand"))
            name, relation = f"{self.rng.choice(PARTNERS)} {last}", self.rng.choice(("Spouse", "Partner", "Sibling"))
        number = f"{self.rng.randrange(100, 999)} {self.rng.randrange(10, 99)} {self.rng.randrange(10, 99)}"
        return {
            "emergency_contact_name": name,
            "emergency_contact_phone": f"+46 7{self.rng.choice('0236')} {number}",
            "emergency_contact_relation": relation,
        }

    def default_dates(self, person: Person) -> dict:
        if person.membership in ("Passive", "Honorary") or not person.active:
            return {}
        dates = {"medical": self.rng.randrange(30, 700), "radio": "never"}
        if "student" not in person.roles and person.born < "2008":
            dates["sep"] = self.rng.randrange(-60, 700)
        if self.rng.random() < 0.4:
            dates["security"] = (self.rng.randrange(60, 900), self.rng.random() < 0.7)
        if self.rng.random() < 0.3:
            dates["language"] = "never" if self.rng.random() < 0.5 else self.rng.randrange(200, 1400)
        return dates

    def card(self) -> dict:
        return {
            "access_card_number": f"0004{self.rng.randrange(100_000, 999_999)}",
            "access_card_code": f"{self.rng.randrange(1000, 9999)}",
        }


def set_dates(member: Member, types: dict, dates: dict, today: dt.date, scans: list) -> None:
    """`dates`: type key -> days from today, "never", or (days, has_image); the images go to `scans`."""
    for key, value in dates.items():
        has_image = False
        if isinstance(value, tuple | list):
            value, has_image = value
        expiry_date = NEVER_EXPIRES if value == "never" else today + dt.timedelta(days=value)
        row = user_expiry_date_set(member=member, expiry_type=types[key], expiry_date=expiry_date)
        if has_image:
            scans.append((row.pk, f"{SCAN_DIR}/{member.organization_id}-{member.member_number}-{key}.png"))


def save_scans(scans: list) -> None:
    """A fixed file name per date, written once: a second run finds the files there and reuses them."""
    storage = UserExpiryDate._meta.get_field("image").storage
    for pk, name in scans:
        if not storage.exists(name):
            storage.save(name, ContentFile(SCAN_PNG))
        UserExpiryDate.objects.filter(pk=pk).update(image=name)


def transactions(org: Organization, user: User, rows, today: dt.date) -> list[Transaction]:
    return [
        Transaction(
            organization=org,
            user=user,
            date=today - dt.timedelta(days=days),
            amount=Decimal(amount),
            comment=comment,
        )
        for days, amount, comment in rows
    ]


def default_transactions(person: Person, index: int, today: dt.date) -> tuple:
    """The annual fee and its payment for about every third member; flights for some; a few owe money."""
    if person.transactions:
        return person.transactions
    fee = ANNUAL_FEES[person.membership]
    if fee is None or index % 3:
        return ()
    rows = [(120, f"-{fee}", f"Annual fee {today.year}"), (100, fee, "Payment, thank you")]
    if index % 2 == 0:
        rows.append((30, "-1275.00", "Flight SE-KXY 0:55"))
    if index % 4 == 0:
        rows.append((20, "2000.00", "Deposit to flight account"))
    if index % 5 == 0:
        rows.append((8, "-690.00", "Flight SE-MIX 0:30"))
    return tuple(rows)


def _emails(user: User, person_first: str, last: str, index: int, *, second: bool, invalid: dict) -> list[UserEmail]:
    addresses = [f"{slug(person_first, last)}@{DOMAINS[index % len(DOMAINS)]}"]
    if second:
        addresses.append(f"{slug(person_first)}.{index}@work.example.com")
    return [
        UserEmail(
            user=user,
            position=position,
            address=address,
            invalid=position in invalid,
            invalid_reason=invalid.get(position, ""),
        )
        for position, address in enumerate(addresses)
    ]


def first_club_people(club, member_hash, memberships, groups, details: Details):
    """Logins and member records of PEOPLE; returns [(person, member)]."""
    made = []
    emails = []
    for index, person in enumerate(PEOPLE, 1):
        username = f"{club.pk}-{person.username or slug(person.first, person.particle + person.last)}"
        extra = {} if person.no_address else details.address(index)
        extra |= details.mobile()
        if index % 3 == 0:
            extra["phone_home"] = f"021-{details.rng.randrange(10, 99)} {details.rng.randrange(10, 99)} 00"
        if index % 5 == 2:
            extra["phone_work"] = f"021-{details.rng.randrange(30, 39)}0 {details.rng.randrange(10, 99)} 00"
        if index % 4 != 3:
            extra |= details.emergency(person)
        user = make_login(
            username,
            member_hash,
            first_name=person.first,
            last_name=person.last,
            last_name_particle=person.particle,
            personal_identification_number=personnummer(person.born, 100 + index * 7),
            ksak_member_number=person.ksak,
            locked_login=person.locked_login,
            **extra,
        )
        emails += _emails(
            user,
            person.first,
            person.particle + person.last,
            index,
            second=person.second_email,
            invalid=person.invalid_emails,
        )
        fee = ANNUAL_FEES[person.membership]
        card = details.card() if person.card else {}
        if card:
            card["access_card_expiry_date"] = dt.date(2027 + index % 3, 12, 31)
        made_member = make_member(
            club,
            user,
            person.number,
            memberships[person.membership],
            roles=person.roles,
            active=person.active,
            locked=person.locked,
            annual_fee=Decimal(fee) if fee else None,
            external_customer_number=f"K{20000 + int(person.number.lstrip('0') or 0)}",
            misc_info=person.misc,
            internal_notes=person.notes,
            **card,
        )
        if person.groups:
            made_member.user_groups.set([groups[name] for name in person.groups])
        made.append((person, made_member))
    UserEmail.objects.bulk_create(emails)
    return made
