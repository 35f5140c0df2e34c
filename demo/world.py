"""The demo world: three clubs, their administrators, members and API tokens, the same on every run.

- Västerås Flygklubb: about 40 members with every block of the User resource filled in (memberships,
  user groups, roles, emails with invalid marks, addresses, phones, emergency contacts, accounts with
  transactions, access cards, expiry dates of five types), some inactive or locked, and three logins made
  by Bergen Flyklubb that are members here too.
- Bergen Flyklubb: the second organization, whose logins (`2-...`) are also members in Västerås.
- Kiruna Flygklubb: a trial organization (no flight log) with 4 active members and one inactive.
- Västerås has one webhook, subscribed to everything, at DEMO_WEBHOOK_URL (default: where `make run` starts
  `manage.py webhook_listen`); `"webhooks"` in the JSON is null where that address is refused.
- The Mobile API v5 (`"mobile"` in the JSON): a public and a confidential app client with fixed client ids and
  redirect addresses in the app's own scheme, a member who flies (as pilot and as instructor), pays and may
  book, another member of the same club with bookings in the coming weeks, and pictures of a few aircraft.

Fixed data only: names and numbers are written out here, and the few values that vary between members come
from random.Random with a fixed seed. Expiry dates and transaction dates are counted from the club's today,
so that the demo always shows dates that are expired, near and far; the printed JSON has no dates and is
the same on every run. Later parts of the service add their data through `build_world`; the printed keys
stay stable.
"""

import datetime as dt
import hashlib
import io
import os
import random
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal

from django.contrib.auth.hashers import make_password
from django.core.files.base import ContentFile
from django.db.models import Sum

from accounts.expiry import NEVER_EXPIRES
from accounts.models import Member, Membership, Organization, User, UserEmail, UserExpiryDate, UserGroup
from accounts.services import expiry_date_type_create, member_set_roles, user_create, user_expiry_date_set, user_update
from apicore import clock
from bookings.models import Booking
from demo.operations import build_demo_operations
from economy.models import Transaction
from main_api.models import MODULES
from main_api.services import api_token_create
from mobile_api.services.app_clients import app_client_create
from objects_app.models import BookableObject
from webhooks.addresses import AddressRefused
from webhooks.services import webhook_create

ADMIN_PASSWORD = "demo-admin-2026"
MEMBER_PASSWORD = "demo-member-2026"
SUPPORT_PASSWORD = "demo-support-2026"
SEED = 20260101

# A 1x1 PNG: the "scan" of a certificate on the types that need an image.
SCAN_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0"
    "f01f0005000201a5f1f1b00000000049454e44ae426082"
)
SCAN_DIR = "expiry-dates/demo"
# Where `make run` starts `manage.py webhook_listen` (bin/run-demo reads the address back from the JSON).
DEMO_WEBHOOK_URL = "http://127.0.0.1:8766/webhook"


def _demo_secret(label: str) -> str:
    # Deterministic so that scripts written against the demo keep working after `make run` again.
    return "demo_" + hashlib.sha256(f"flyclub-demo-{label}".encode()).hexdigest()[:38]


@dataclass
class World:
    document: dict = field(default_factory=dict)


def _login(username: str, first: str, last: str, password_hash: str, **extra) -> User:
    user = User(username=username, first_name=first, last_name=last, password=password_hash, **extra)
    user.save()
    return user


def _club(name: str, where: tuple[str, str, str, str, str], **extra) -> Organization:
    """`where`: timezone, reference ICAO, country, latitude, longitude."""
    timezone, icao, country, latitude, longitude = where
    location = {"reference_icao": icao, "country": country, "latitude": latitude, "longitude": longitude}
    return Organization.objects.create(name=name, timezone=timezone, **location, **extra)


def _member(org: Organization, user: User, number: str, membership: Membership | None, roles=(), **extra) -> Member:
    member = Member.objects.create(user=user, organization=org, member_number=number, membership=membership, **extra)
    if roles:
        member_set_roles(member=member, roles=list(roles))
    return member


def _token(org, owner, label: str, client_id: int, rights: dict) -> dict:
    _token_obj, secret = api_token_create(
        organization=org,
        owner=owner,
        description=f"Demo: {label}",
        rights=rights,
        client_id=client_id,
        secret=_demo_secret(f"{org.pk}-{label}"),
    )
    return {"client_id": str(client_id), "secret": secret}


# --- the people ----------------------------------------------------------------------------------


@dataclass
class Person:
    """One member of Västerås Flygklubb; what is left out is filled in by `_Details`."""

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


# The first four are the members of the earlier demo (same usernames, numbers and ids).
PEOPLE = [
    Person(
        "Erik", "Johansson", "1002", born="1968-03-02", username="erik", ksak="31402", groups=("Aircraft partners",)
    ),
    Person("Anna", "Berg", "1003", born="1984-11-23", username="anna", second_email=True, ksak="31877"),
    Person("Lars", "Nilsson", "1004", born="1959-08-30", username="lars", roles=("board_member",), groups=("Board",)),
    Person(
        "Åsa",
        "Öberg",
        "1007",
        born="1972-02-14",
        roles=("instructor", "board_member"),
        groups=("Instructors", "Board", "Flight safety committee"),
        ksak="28811",
        misc="Chief flying instructor (CFI).",
    ),
    Person(
        "Gustaf",
        "Essen",
        "1009",
        particle="von",
        born="1961-05-09",
        roles=("instructor",),
        groups=("Instructors", "Aircraft partners"),
        ksak="22406",
        second_email=True,
        dates={"medical": 41, "sep": 170, "radio": "never", "language": "never", "security": (300, True)},
    ),
    Person(
        "Märta",
        "Klercker",
        "1012",
        particle="af",
        born="1979-12-01",
        roles=("board_member",),
        groups=("Board",),
        misc="Treasurer.",
        notes="Signs payments together with the chair.",
    ),
    Person(
        "Björn",
        "Åkesson",
        "1015",
        born="1956-07-19",
        roles=("maintenance",),
        groups=("Maintenance team",),
        misc="Holds the Part-66 licence for the club's Cessnas.",
    ),
    Person(
        "Per-Olof",
        "Håkansson",
        "1016",
        born="1953-01-27",
        roles=("maintenance",),
        groups=("Maintenance team",),
        invalid_emails={0: "Mailbox full"},
    ),
    Person(
        "Ingrid",
        "Sjöström",
        "1018",
        born="1990-04-03",
        roles=("student",),
        groups=("PPL course 2026",),
        dates={"medical": 300, "security": (120, False)},
    ),
    Person("Johan", "Ekström", "1021", born="1988-09-12", roles=("student",), groups=("PPL course 2026",)),
    Person(
        "Elsa",
        "Lundgren",
        "1104",
        "Junior",
        born="2009-06-21",
        roles=("student",),
        groups=("Youth section", "PPL course 2026"),
        dates={"medical": 500},
    ),
    Person(
        "Oskar",
        "Bergqvist",
        "1105",
        "Junior",
        born="2008-10-05",
        roles=("student",),
        groups=("Youth section", "PPL course 2026"),
        dates={"medical": -12},
    ),
    Person("Maja", "Engström", "1108", "Junior", born="2010-01-30", groups=("Youth section",), card=False),
    Person("Nils", "Holmberg", "1023", "Passive", born="1949-11-11", card=False),
    Person(
        "Sven-Erik",
        "Törnqvist",
        "1024",
        "Passive",
        born="1947-03-15",
        active=False,
        second_email=True,
        invalid_emails={1: "Domain not found"},
        card=False,
        notes="Moved to Spain; kept as passive member.",
    ),
    Person("Linnea", "Sundberg", "1026", born="1992-07-07", ksak="33050"),
    Person(
        "Henrik",
        "Geer",
        "1027",
        particle="de",
        born="1970-10-10",
        roles=("board_member",),
        groups=("Board", "Flight safety committee"),
        second_email=True,
    ),
    Person("Ebba", "Platen", "1029", particle="von", born="1986-05-05", groups=("Aircraft partners",)),
    Person("Axel", "Forsberg", "1031", born="1977-08-08", ksak="29904"),
    Person("Frida", "Wallin", "1033", born="1995-02-02", dates={"medical": -40, "sep": -5, "radio": "never"}),
    Person(
        "Mikael",
        "Hedlund",
        "1034",
        born="1981-12-24",
        locked=True,
        invalid_emails={0: "Mailbox full"},
        notes="Locked: annual fee unpaid since February.",
        transactions=((200, "-1800.00", "Annual fee"), (60, "-1450.00", "Flight SE-KXY 1:05")),
    ),
    Person("Agneta", "Blom", "1036", "Passive", born="1958-04-18", invalid_emails={0: "User unknown"}, card=False),
    Person(
        "Kjell",
        "Söderberg",
        "0017",
        "Honorary",
        born="1941-09-09",
        card=False,
        misc="Founding member, honorary member since 2011.",
    ),
    Person("Ulla", "Göransson", "1040", "Honorary", born="1944-02-29", active=False, card=False, no_address=True),
    Person("Fredrik", "Nyström", "1042", born="1983-03-03", second_email=True),
    Person(
        "Emma",
        "Dahlgren",
        "1113",
        "Junior",
        born="2008-08-18",
        roles=("student",),
        groups=("Youth section", "PPL course 2026"),
    ),
    Person(
        "Hugo",
        "Sandström",
        "1114",
        "Junior",
        born="2009-12-12",
        roles=("student",),
        groups=("Youth section",),
        dates={"medical": 250, "security": (-3, False)},
    ),
    Person("Olle", "Jönsson", "1045", born="1966-06-06", ksak="24418"),
    Person("Birgitta", "Hellström", "1046", "Passive", born="1952-01-09", card=False),
    Person(
        "Anders",
        "Strömberg",
        "1047",
        born="1974-04-04",
        locked_login=True,
        notes="Login stopped by support after a report of a shared password.",
    ),
    Person("Karl-Johan", "Fält", "1049", born="1963-11-30", groups=("Aircraft partners",), ksak="26031"),
    Person("Sara", "Ljungberg", "1051", "Family", born="1980-09-19"),
    Person("Viktor", "Ljungberg", "1052", "Family", born="2011-03-22", groups=("Youth section",), card=False),
    Person("Malin", "Åström", "1054", born="1987-07-01", dates={"medical": 12, "sep": 25, "radio": "never"}),
    Person("Göran", "Lindahl", "1055", born="1950-05-17", active=False, notes="Inactive at own request."),
    Person("Helena", "Ugglas", "1057", particle="af", born="1976-01-21", second_email=True),
    Person("Tobias", "Vikström", "1058", born="1993-10-14", roles=("student",), groups=("PPL course 2026",)),
    Person("Ida", "Nordin", "1116", "Junior", born="2010-05-25", groups=("Youth section",)),
    Person(
        "Rasmus",
        "Bäckström",
        "1060",
        born="1985-08-27",
        roles=("instructor",),
        groups=("Instructors",),
        ksak="30127",
    ),
]

# Logins made by Bergen Flyklubb (`2-...`) that are also members in Västerås.
BERGEN_PEOPLE = [
    # first, last, username tail, Bergen number, Västerås number, Västerås membership, roles in Västerås
    ("Ingrid", "Haugland", "ingrid.haugland", "14", "1062", "Senior", ("instructor",)),
    ("Sindre", "Bø", "sindre.bo", "27", "1063", "Passive", ()),
    ("Kari", "Østby", "kari.ostby", "31", "1064", "Senior", ()),
]

MEMBERSHIPS = ("Senior", "Junior", "Passive", "Family", "Honorary")
ANNUAL_FEES = {"Senior": "1800.00", "Junior": "600.00", "Passive": "400.00", "Family": "1200.00", "Honorary": None}
GROUPS = (
    "Instructors",
    "Board",
    "Aircraft partners",
    "Flight safety committee",
    "Maintenance team",
    "PPL course 2026",
    "Youth section",
)
EXPIRY_TYPES = {
    # key: (name, settings)
    "medical": (
        "Medical class 2",
        {
            "members_can_change": True,
            "booking_required": True,
            "booking_also_for_students": True,
            "reminders_at_login": True,
            "reminders_days_before": 60,
        },
    ),
    "sep": ("SEP rating", {"booking_required": True, "booking_warning_only": True, "reminders_at_login": True}),
    "radio": ("Radio licence", {"may_never_expire": True}),
    "language": ("English proficiency", {"may_never_expire": True, "members_can_change": True}),
    "security": ("Security check", {"image_required": True, "reminders_days_before": 90}),
}

VASTERAS_STREETS = (
    "Storgatan",
    "Vasagatan",
    "Kopparbergsvägen",
    "Sigurdsgatan",
    "Bäckbygatan",
    "Djäknegatan",
    "Karlsgatan",
    "Slottsgatan",
    "Skultunavägen",
    "Malmabergsgatan",
    "Björnövägen",
    "Viksängsgatan",
    "Rönnbergagatan",
    "Norra Ringvägen",
)
TOWNS = (
    ("Västerås", "722"),
    ("Västerås", "723"),
    ("Västerås", "724"),
    ("Västerås", "725"),
    ("Köping", "731"),
    ("Sala", "733"),
    ("Hallstahammar", "734"),
    ("Enköping", "745"),
)
PARTNERS = ("Maria", "Peter", "Lena", "Jonas", "Katarina", "Mats", "Eva", "Stefan", "Helén", "Magnus")
DOMAINS = ("example.com", "example.net", "example.org")
ASCII = str.maketrans({"å": "a", "ä": "a", "ö": "o", "ø": "o", "é": "e", "Å": "A", "Ä": "A", "Ö": "O", "Ø": "O"})


def _slug(*parts: str) -> str:
    return ".".join(part.translate(ASCII).lower().replace(" ", "") for part in parts if part)


def _personnummer(born: str, serial: int) -> str:
    """YYYYMMDD-NNNC with a correct Luhn check digit."""
    digits = born.replace("-", "")[2:] + f"{serial % 1000:03d}"
    total = 0
    for index, digit in enumerate(digits):
        product = int(digit) * (2 if index % 2 == 0 else 1)
        total += product // 10 + product % 10
    return f"{born.replace('-', '')}-{digits[6:]}{(10 - total % 10) % 10}"


class _Details:
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


# --- building --------------------------------------------------------------------------------------


def _set_dates(member: Member, types: dict, dates: dict, today: dt.date, scans: list) -> None:
    for key, value in dates.items():
        has_image = False
        if isinstance(value, tuple):
            value, has_image = value
        expiry_date = NEVER_EXPIRES if value == "never" else today + dt.timedelta(days=value)
        row = user_expiry_date_set(member=member, expiry_type=types[key], expiry_date=expiry_date)
        if has_image:
            scans.append((row.pk, f"{SCAN_DIR}/{member.organization_id}-{member.member_number}-{key}.png"))


def _save_scans(scans: list) -> None:
    """A fixed file name per date, written once: a second run finds the files there and reuses them."""
    storage = UserExpiryDate._meta.get_field("image").storage
    for pk, name in scans:
        if not storage.exists(name):
            storage.save(name, ContentFile(SCAN_PNG))
        UserExpiryDate.objects.filter(pk=pk).update(image=name)


def _transactions(org: Organization, user: User, rows, today: dt.date) -> list[Transaction]:
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


def _default_transactions(person: Person, index: int, today: dt.date) -> tuple:
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
    addresses = [f"{_slug(person_first, last)}@{DOMAINS[index % len(DOMAINS)]}"]
    if second:
        addresses.append(f"{_slug(person_first)}.{index}@work.example.com")
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


def _first_club_people(club, member_hash, memberships, groups, details: _Details):
    """Logins and member records of PEOPLE; returns [(person, member)]."""
    made = []
    emails = []
    for index, person in enumerate(PEOPLE, 1):
        username = f"{club.pk}-{person.username or _slug(person.first, person.particle + person.last)}"
        extra = {} if person.no_address else details.address(index)
        extra |= details.mobile()
        if index % 3 == 0:
            extra["phone_home"] = f"021-{details.rng.randrange(10, 99)} {details.rng.randrange(10, 99)} 00"
        if index % 5 == 2:
            extra["phone_work"] = f"021-{details.rng.randrange(30, 39)}0 {details.rng.randrange(10, 99)} 00"
        if index % 4 != 3:
            extra |= details.emergency(person)
        user = _login(
            username,
            person.first,
            person.last,
            member_hash,
            last_name_particle=person.particle,
            personal_identification_number=_personnummer(person.born, 100 + index * 7),
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
        member = _member(
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
            member.user_groups.set([groups[name] for name in person.groups])
        made.append((person, member))
    UserEmail.objects.bulk_create(emails)
    return made


def build_world() -> dict:
    admin_hash = make_password(ADMIN_PASSWORD)
    member_hash = make_password(MEMBER_PASSWORD)
    User.objects.create_superuser(username="support", password=SUPPORT_PASSWORD, email="support@example.com")
    details = _Details()

    club = _club("Västerås Flygklubb", ("Europe/Stockholm", "ESOW", "SE", "59.589444", "16.633611"))
    today = clock.today_in(club.timezone)
    memberships = {name: Membership.objects.create(organization=club, name=name) for name in MEMBERSHIPS}
    groups = {name: UserGroup.objects.create(organization=club, name=name) for name in GROUPS}
    # The members' app settings (GET /mobile/v5/organization/settings): two shown in the app, one not.
    club.app_settings.create(
        setting_id=1000, name="Hide the balance in the app's lobby", value="false", value_type="bool"
    )
    club.app_settings.create(setting_id=1001, name="Hide the transactions", value="false", value_type="bool")
    club.app_settings.create(setting_id=1100, name="Board notes", value="", value_type="text", show_in_app=False)

    admin = _login(
        f"{club.pk}-admin",
        "Karin",
        "Lindqvist",
        admin_hash,
        is_staff=True,
        personal_identification_number=_personnummer("1966-09-04", 482),
        ksak_member_number="20391",
        **details.address(0),
        **details.mobile(),
        emergency_contact_name="Mats Lindqvist",
        emergency_contact_phone="+46 70 412 88 31",
        emergency_contact_relation="Spouse",
    )
    UserEmail.objects.create(user=admin, position=0, address="karin.lindqvist@example.com")
    admin_member = _member(
        club,
        admin,
        "1001",
        memberships["Senior"],
        roles=["admin", "board_member", "instructor"],
        annual_fee=Decimal("1800.00"),
        external_customer_number="K21001",
        misc_info="Chair of the board.",
        access_card_number="0004100001",
        access_card_code="2580",
        access_card_expiry_date=dt.date(2028, 12, 31),
    )
    admin_member.user_groups.set([groups["Board"], groups["Instructors"]])

    people = _first_club_people(club, member_hash, memberships, groups, details)
    by_username = {member.user.username: member for _person, member in people}
    members = [{"id": admin.pk, "username": admin.username, "password": ADMIN_PASSWORD}]
    for tail in ("erik", "anna", "lars", "asa.oberg", "gustaf.vonessen", "ingrid.sjostrom", "mikael.hedlund"):
        user = by_username[f"{club.pk}-{tail}"].user
        members.append({"id": user.pk, "username": user.username, "password": MEMBER_PASSWORD})

    all_rights = {module: "rw" for module in MODULES}
    tokens = {
        "full": _token(club, admin, "full", 100001, all_rights),
        "read_only": _token(club, admin, "read only", 100002, {module: "r" for module in MODULES}),
        "no_rights": _token(club, admin, "no rights", 100003, {}),
    }

    types = {
        key: expiry_date_type_create(organization=club, name=name, **settings)
        for key, (name, settings) in EXPIRY_TYPES.items()
    }
    scans = []
    _set_dates(
        admin_member, types, {"medical": 210, "sep": 95, "radio": "never", "security": (400, True)}, today, scans
    )
    money = _transactions(
        club, admin, [(120, "-1800.00", f"Annual fee {today.year}"), (118, "1800.00", "Payment")], today
    )
    for index, (person, member) in enumerate(people, 1):
        dates = person.dates if person.dates is not None else details.default_dates(person)
        _set_dates(member, types, dates, today, scans)
        money += _transactions(club, member.user, _default_transactions(person, index, today), today)

    second = _club("Bergen Flyklubb", ("Europe/Oslo", "ENBR", "NO", "60.293611", "5.218056"))
    aktiv = Membership.objects.create(organization=second, name="Aktiv")
    Membership.objects.create(organization=second, name="Passiv")
    second_admin = _login(f"{second.pk}-admin", "Ola", "Nordmann", admin_hash, is_staff=True)
    _member(second, second_admin, "1", None, roles=["admin"])
    bergen_medical = expiry_date_type_create(organization=second, name="Medical class 2", booking_required=True)
    for index, (first, last, tail, bergen_number, number, membership, roles) in enumerate(BERGEN_PEOPLE):
        user = _login(
            f"{second.pk}-{tail}",
            first,
            last,
            member_hash,
            nlf_member_number=f"{40512 + index * 311}",
            street_address_1=("Kong Oscars gate 12", "Fjøsangerveien 50", "Nordnesgaten 3")[index],
            postal_code=("5017", "5059", "5011")[index],
            city="Bergen",
            country="NO",
            **details.mobile("47"),
        )
        UserEmail.objects.create(user=user, position=0, address=f"{tail}@example.no")
        at_home = _member(second, user, bergen_number, aktiv, roles=("instructor",) if roles else ())
        user_expiry_date_set(member=at_home, expiry_type=bergen_medical, expiry_date=today + dt.timedelta(days=150))
        here = _member(
            club,
            user,
            number,
            memberships[membership],
            roles=roles,
            annual_fee=Decimal(ANNUAL_FEES[membership]),
            external_customer_number=f"K{20000 + int(number)}",
            misc_info="Member of Bergen Flyklubb too.",
        )
        if roles:
            here.user_groups.set([groups["Instructors"]])
            _set_dates(here, types, {"medical": 150, "sep": 320, "radio": "never"}, today, scans)
        members.append({"id": user.pk, "username": user.username, "password": MEMBER_PASSWORD})
    money += _transactions(club, by_username[f"{club.pk}-anna"].user, [(3, "-845.00", "Flight SE-MIX 0:35")], today)
    Transaction.objects.bulk_create(money)
    _save_scans(scans)
    second_token = _token(second, second_admin, "full", 200001, all_rights)
    operations = build_demo_operations(club, second)
    mobile = _mobile(club, operations, today)

    trial, trial_admin = _trial_club(admin_hash, member_hash)
    tokens["trial_full"] = _token(trial, trial_admin, "full", 300001, all_rights)
    # Last, so that building the world records no events for it.
    webhook = _webhook(club)

    return {
        "base_url": "/main/v5",
        "organization": {"id": club.pk, "name": club.name},
        "admin": {"username": admin.username, "password": ADMIN_PASSWORD},
        "support": {"username": "support", "password": SUPPORT_PASSWORD},
        "members": members,
        "tokens": tokens,
        "second_organization": {
            "id": second.pk,
            "name": second.name,
            "admin": {"username": second_admin.username, "password": ADMIN_PASSWORD},
            "tokens": {"full": second_token},
        },
        "trial_organization": {
            "id": trial.pk,
            "name": trial.name,
            "admin": {"username": trial_admin.username, "password": ADMIN_PASSWORD},
        },
        "operations": operations,
        "mobile": mobile,
        "webhooks": webhook,
    }


def _webhook(club: Organization) -> dict | None:
    """The club's webhook, subscribed to everything, at DEMO_WEBHOOK_URL; None where the address is refused
    (plain http on loopback needs WEBHOOK_ALLOW_LOOPBACK, which `make run` sets and the bench does not)."""
    url = os.environ.get("DEMO_WEBHOOK_URL") or DEMO_WEBHOOK_URL
    # Fixed secrets, like the API tokens', so that a receiver set up against the demo keeps working after
    # `make run` again.
    token = _demo_secret(f"{club.pk}-webhook-token")
    signing_key = hashlib.sha256(f"flyclub-demo-{club.pk}-webhook-signing-key".encode()).hexdigest()
    try:
        webhook, _, _ = webhook_create(organization=club, url=url, token=token, signing_key=signing_key)
    except AddressRefused:
        return None
    return {"id": webhook.pk, "url": url, "token": token, "signing_key": signing_key}


def _trial_club(admin_hash: str, member_hash: str) -> tuple[Organization, User]:
    """A trial organization without flight log: 4 active members (the limit is 5) and one inactive.

    The members after the administrator are made by the service of POST /users, so the trial limit and the
    automatic member numbers (10001, 10002, ...) apply as they would through the API.
    """
    kiruna = ("Europe/Stockholm", "ESNQ", "SE", "67.821944", "20.336667")
    trial = _club("Kiruna Flygklubb", kiruna, is_trial=True, uses_flight_log=False)
    senior = Membership.objects.create(organization=trial, name="Senior")
    admin = _login(f"{trial.pk}-admin", "Elin", "Pettersson", admin_hash, is_staff=True)
    UserEmail.objects.create(user=admin, position=0, address="elin.pettersson@example.com")
    _member(trial, admin, "10000", senior, roles=["admin"])
    made = []
    for first, last in (("Aino", "Keskitalo"), ("Johan", "Kuoljok"), ("Sanna", "Lantto"), ("Per", "Niva")):
        tail = _slug(first, last)
        made.append(
            user_create(
                organization=trial,
                username=f"{trial.pk}-{tail}",
                first_name=first,
                last_name=last,
                membership_id=senior.pk,
                email=[f"{tail}@example.com"],
                address={
                    "street_address": ["Hjalmar Lundbohmsvägen 20"],
                    "postal_code": "981 31",
                    "city": "Kiruna",
                    "country": "SE",
                },
                phone={"mobile": {"country_code": "+46", "initial_number": "70", "number": "5550" + str(len(made))}},
            )
        )
    user_update(member=made[-1], active=False)
    User.objects.filter(members__organization=trial).exclude(pk=admin.pk).update(password=member_hash)
    return trial, admin


# --- the Mobile API v5 --------------------------------------------------------------------------------------

MOBILE_RIGHTS = {"organization": "r", "objects": "r", "bookings": "rw", "flightlogs": "r", "transactions": "r"}
# Redirect addresses in the app's own scheme, reverse-domain form (RFC 8252 7.1), compared as exact strings.
MOBILE_REDIRECT_URIS = {
    "public": "se.example.flyclub:/oauth/callback",
    "confidential": "se.example.flyclub.partner:/oauth/callback",
}
# The member the app signs in as: the chief flying instructor, who flies as pilot and as instructor; and a
# member of the same club with bookings in the coming weeks.
MOBILE_MEMBER = "asa.oberg"
MOBILE_OTHER_MEMBER = "erik"
# Pictures (the objects' `thumbnail`): registration -> gradient from top to bottom. The others have none.
PICTURES = {
    "SE-KXY": ((35, 92, 160), (196, 222, 245)),
    "SE-MIX": ((150, 40, 40), (246, 214, 190)),
    "SE-MHN": ((28, 28, 48), (120, 140, 190)),
    "LN-NFT": ((20, 100, 80), (200, 235, 220)),
}
PICTURE_DIR = "objects/demo"


def _mobile(club: Organization, operations: dict, today: dt.date) -> dict:
    """The `"mobile"` key: app clients, the member and the other member, their data, aircraft pictures."""
    clients = {
        # The public client (the club's own native app, PKCE) serves this club, so its login page carries the
        # club's name; the confidential one (a partner's server) is allowed everywhere.
        "public": _app_client("public", confidential=False, organizations=[club]),
        "confidential": _app_client("confidential", confidential=True, organizations=[]),
    }
    member = Member.objects.select_related("user").get(organization=club, user__username=f"{club.pk}-{MOBILE_MEMBER}")
    other = Member.objects.select_related("user").get(
        organization=club, user__username=f"{club.pk}-{MOBILE_OTHER_MEMBER}"
    )
    _mobile_member_money(club, member.user, today)
    objects = operations["objects"]
    zone = clock.zone(club.timezone)
    coming = [
        (objects["SE-KXY"], other.user, 2, "Local flight, back by lunch."),
        (objects["SE-KXY"], other.user, 6, "Trip to Örebro."),
        (objects["SE-MIX"], other.user, 13, ""),
        (objects["SE-MIX"], member.user, 4, "Checkout of a new instructor."),
    ]
    for object_id, user, days, comment in coming:
        _coming_booking(object_id, user, today + dt.timedelta(days=days), zone, comment)
    _save_pictures(operations)
    return {
        "base_url": "/mobile/v5",
        "clients": clients,
        "member": {"id": member.user_id, "username": member.user.username, "password": MEMBER_PASSWORD},
        "other_member": {"id": other.user_id, "username": other.user.username, "password": MEMBER_PASSWORD},
    }


def _app_client(label: str, *, confidential: bool, organizations: list[Organization]) -> dict:
    """An app client with a fixed client id (and key), so that an app set up against the demo keeps working
    after `make run` again. The key is in the JSON for the demo only: the service keeps it hashed."""
    redirect_uri = MOBILE_REDIRECT_URIS[label]
    client, _key = app_client_create(
        name="Demo Apps AB",
        app_name="Flying club (demo)" if not confidential else "Flying club partner portal (demo)",
        developer_contact="apps@example.com",
        rights=MOBILE_RIGHTS,
        organizations=organizations,
        redirect_uris=[redirect_uri],
        confidential=confidential,
    )
    application = client.application
    application.client_id = f"demo-mobile-{label}"
    fields = ["client_id"]
    if confidential:
        application.client_secret = _demo_secret(f"mobile-{label}")  # hashed by DOT on save
        fields.append("client_secret")
    application.save(update_fields=fields)
    made = {"client_id": application.client_id}
    if confidential:
        made["secret"] = _demo_secret(f"mobile-{label}")
    return made | {"redirect_uri": redirect_uri}


def _mobile_member_money(club: Organization, user: User, today: dt.date) -> None:
    """More than a year of the member's account besides the flights' charges: fees, payments and a deposit
    each quarter that keep the balance about even; one comment has an internal note after `#`, which the
    Mobile API leaves out."""
    charged = -(Transaction.objects.filter(organization=club, user=user).aggregate(total=Sum("amount"))["total"] or 0)
    deposit = max(Decimal(1000), (Decimal(charged) / 4 / 1000).quantize(Decimal(1), ROUND_CEILING) * 1000)
    rows = [
        (400, "-1800.00", "Annual fee {year}"),
        (390, "1800.00", "Payment, thank you"),
        (120, "-1800.00", "Annual fee {year}"),
        (112, "1800.00", "Payment, thank you"),
        (45, "312.50", "Fuel refund, Linköping #paid from the petty cash, receipt 4471"),
        *((days, str(deposit), "Deposit to flight account") for days in (330, 240, 150, 60)),
    ]
    Transaction.objects.bulk_create(
        Transaction(
            organization=club,
            user=user,
            date=today - dt.timedelta(days=days),
            amount=Decimal(amount),
            comment=comment.format(year=(today - dt.timedelta(days=days)).year),
        )
        for days, amount, comment in rows
    )


def _coming_booking(object_id: int, user: User, day: dt.date, zone, comment: str) -> None:
    """A two-hour private booking on `day` at the first free start of 10:00, 12:00 and 14:00 local; with none
    free, a queue booking at 10:00 (the aircraft allows a queue)."""
    free = None
    for hour in (10, 12, 14):
        start = dt.datetime.combine(day, dt.time(hour), tzinfo=zone).astimezone(dt.UTC)
        end = start + dt.timedelta(hours=2)
        overlapping = Booking.objects.filter(object_id=object_id, is_primary=True, start_at__lt=end, end_at__gt=start)
        if not overlapping.exists():
            free = start, end
            break
    if free is None:
        start = dt.datetime.combine(day, dt.time(10), tzinfo=zone).astimezone(dt.UTC)
        end = start + dt.timedelta(hours=2)
    else:
        start, end = free
    Booking.objects.create(
        object_id=object_id,
        user=user,
        start_at=start,
        end_at=end,
        type="PRIV",
        is_primary=free is not None,
        comment=comment,
        created_at=min(start - dt.timedelta(days=1), clock.now()),
        created_by=user,
    )


def aircraft_picture(registration: str, top: tuple, bottom: tuple) -> bytes:
    """A 600x400 JPEG: a gradient from `top` to `bottom` with the registration written across it."""
    from PIL import Image, ImageDraw, ImageFont

    size = (600, 400)
    mask = Image.linear_gradient("L").resize(size)
    image = Image.composite(Image.new("RGB", size, bottom), Image.new("RGB", size, top), mask)
    draw = ImageDraw.Draw(image)
    draw.line([(0, 300), (600, 300)], fill=(255, 255, 255), width=2)  # a horizon
    try:
        font = ImageFont.load_default(size=96)
    except (AttributeError, ImportError, OSError):  # Pillow without FreeType: the small bitmap font
        font = ImageFont.load_default()
    draw.text(
        (300, 180), registration, font=font, anchor="mm", fill=(255, 255, 255), stroke_width=3, stroke_fill=(0, 0, 0)
    )
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _save_pictures(operations: dict) -> None:
    """The pictures of PICTURES under fixed names, written anew on each run (the same bytes)."""
    ids = operations["objects"] | {operations["shared_object"]["registration"]: operations["shared_object"]["id"]}
    storage = BookableObject._meta.get_field("thumbnail").storage
    for registration, (top, bottom) in PICTURES.items():
        name = f"{PICTURE_DIR}/{registration}.jpg"
        if storage.exists(name):
            storage.delete(name)
        saved = storage.save(name, ContentFile(aircraft_picture(registration, top, bottom)))
        BookableObject.objects.filter(pk=ids[registration]).update(thumbnail=saved)
