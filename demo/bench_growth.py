"""The growth benchmark's members (bench/growth.py): organizations full of members made in bulk inserts, each
member with what real members have (one or two addresses, a membership, user groups, roles, expiry dates, a
phone and a postal address), and the expiry dates of the operations club (demo/bench_club.py makes none).

The flights, bookings and transactions of nine earlier years are copied in SQL (bench/growth_data.py); here only
what needs the models: usernames with their look-alike skeletons, names joined as the models join them."""

import datetime as dt
import random
from decimal import Decimal

from accounts.models import (
    ExpiryDateType,
    Member,
    MemberRole,
    Membership,
    Organization,
    User,
    UserEmail,
    UserExpiryDate,
    UserGroup,
)
from accounts.models.user import join_name
from accounts.usernames import username_skeleton
from apicore import clock
from demo.datafiles import load

_BENCH = load("bench")
FIRST_NAMES = _BENCH["first_names"].split()
LAST_NAMES = _BENCH["last_names"].split()
PARTICLES = ("", "", "", "", "", "", "", "von", "af", "de")
CITIES = (("72211", "Västerås"), ("75320", "Uppsala"), ("11122", "Stockholm"), ("58183", "Linköping"))
GROUPS = ("Board", "Instructors", "Tow pilots", "Glider section", "Youth", "Hangar team")
EXPIRY_TYPES = (("Medical", False), ("Licence", False), ("Check flight", True))
MEMBERSHIPS = ("Senior", "Junior", "Passive")
ORGANIZATION_SIZE = 450  # members of each organization made here


def _login(username: str, rng: random.Random) -> User:
    first, last, particle = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES), rng.choice(PARTICLES)
    postal_code, city = rng.choice(CITIES)
    return User(
        username=username,
        username_skeleton=username_skeleton(username),  # bulk_create skips save()
        password="!",
        first_name=first,
        last_name_particle=particle,
        last_name=last,
        name=join_name(first, particle, last),
        street_address_1=f"{rng.choice(LAST_NAMES)}gatan {rng.randint(1, 80)}",
        postal_code=postal_code,
        city=city,
        country="SE",
        phone_home="" if rng.random() < 0.6 else f"021-{rng.randrange(100000, 999999)}",
        mobile_country_code="46",
        mobile_initial_number=rng.choice(("70", "72", "73", "76")),
        mobile_number=str(rng.randrange(1000000, 9999999)),
        email_visible=rng.random() > 0.06,
        mobile_visible=rng.random() > 0.08,
        personal_identification_number=f"{rng.randint(1940, 2010)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}-"
        f"{rng.randrange(1000, 9999)}",
    )


def _organization_parts(org: Organization) -> tuple[list, list, list]:
    """The organization's memberships, user groups and expiry date types, made when it has none."""
    memberships = list(Membership.objects.filter(organization=org).order_by("id"))
    if not memberships:
        memberships = Membership.objects.bulk_create([Membership(organization=org, name=n) for n in MEMBERSHIPS])
    groups = list(UserGroup.objects.filter(organization=org).order_by("id"))
    if not groups:
        groups = UserGroup.objects.bulk_create([UserGroup(organization=org, name=n) for n in GROUPS])
    types = list(ExpiryDateType.objects.filter(organization=org).order_by("id"))
    if not types:
        types = ExpiryDateType.objects.bulk_create(
            [ExpiryDateType(organization=org, name=n, may_never_expire=never) for n, never in EXPIRY_TYPES]
        )
    return memberships, groups, types


def expiry_dates_for(members: list[Member], types: list[ExpiryDateType], rng: random.Random, today: dt.date):
    """Dates of most types for most members: some expired, some far ahead, some never (2999-12-31)."""
    dates = []
    for member in members:
        for kind in types:
            if rng.random() < 0.25:
                continue
            if kind.may_never_expire and rng.random() < 0.3:
                day = dt.date(2999, 12, 31)
            else:
                day = today + dt.timedelta(days=rng.randint(-400, 900))
            dates.append(UserExpiryDate(member=member, type=kind, expiry_date=day))
    UserExpiryDate.objects.bulk_create(dates, batch_size=4000)
    return len(dates)


def add_members(org: Organization, count: int, *, rng: random.Random, tag: str, active_share: float = 0.85) -> int:
    """`count` new members of the organization, each with a new login (username `<org id>-<tag><n>`)."""
    memberships, groups, types = _organization_parts(org)
    today = clock.today_in(org.timezone)
    users = [_login(f"{org.pk}-{tag}{index:05d}", rng) for index in range(count)]
    User.objects.bulk_create(users, batch_size=2000)
    emails = []
    for user in users:
        if rng.random() < 0.93:
            invalid = rng.random() < 0.03
            emails.append(
                UserEmail(
                    user=user,
                    position=0,
                    address=f"{user.username}@example.com",
                    invalid=invalid,
                    invalid_reason="Mailbox does not exist." if invalid else "",
                )
            )
            if rng.random() < 0.2:
                emails.append(UserEmail(user=user, position=1, address=f"{user.username}.work@example.org"))
    UserEmail.objects.bulk_create(emails, batch_size=4000)
    taken = set(Member.objects.filter(organization=org).values_list("member_number", flat=True))
    first_number = 10000 + len(taken)
    members = []
    for index, user in enumerate(users):
        number = first_number + index
        while str(number) in taken:
            number += 1
        taken.add(str(number))
        members.append(
            Member(
                user=user,
                organization=org,
                member_number=str(number),
                membership=memberships[index % len(memberships)],
                active=rng.random() < active_share,
                annual_fee=Decimal(rng.choice((1200, 1800, 600))) if index % 3 else None,
                external_customer_number=f"K{org.pk}{index:05d}" if index % 4 == 0 else "",
                misc_info="Glider rating." if index % 11 == 0 else "",
                access_card_number=f"{rng.randrange(10**7, 10**8)}" if index % 5 == 0 else "",
                access_card_expiry_date=today + dt.timedelta(days=rng.randint(-100, 700)) if index % 5 == 0 else None,
            )
        )
    Member.objects.bulk_create(members, batch_size=2000)
    Through = Member.user_groups.through
    Through.objects.bulk_create(
        [
            Through(member_id=member.pk, usergroup_id=group.pk)
            for member in members
            for group in rng.sample(groups, rng.choice((0, 1, 1, 2)))
        ],
        batch_size=4000,
    )
    roles = []
    for index, member in enumerate(members):
        if index % 40 == 1:
            roles.append(MemberRole(member=member, role="instructor"))
        elif index % 7 == 2:
            roles.append(MemberRole(member=member, role="student"))
        elif index % 90 == 3:
            roles.append(MemberRole(member=member, role="board_member"))
    MemberRole.objects.bulk_create(roles, batch_size=4000)
    expiry_dates_for(members, types, rng, today)
    return len(members)


def grow_organizations(total_members: int, *, seed: int = 1905, size: int = ORGANIZATION_SIZE) -> dict:
    """New organizations ("Tillväxt Flygklubb N") of `size` members each, until the service has
    `total_members` member records in all."""
    rng = random.Random(seed + Member.objects.count())
    made_orgs, made_members = 0, 0
    while (missing := total_members - Member.objects.count()) > 0:
        number = Organization.objects.filter(name__startswith="Tillväxt Flygklubb").count() + 1
        org = Organization.objects.create(
            name=f"Tillväxt Flygklubb {number}", timezone="Europe/Stockholm", country="SE", reference_icao="ESOW"
        )
        made_members += add_members(org, min(size, missing), rng=rng, tag="g")
        made_orgs += 1
    return {"organizations": made_orgs, "members": made_members, "members_total": Member.objects.count()}


def club_expiry_dates(organization_id: int, *, seed: int = 1906) -> int:
    """Expiry date types (medical, licence, check flight) and most members' dates, for a club that has none."""
    org = Organization.objects.get(pk=organization_id)
    _memberships, _groups, types = _organization_parts(org)
    if UserExpiryDate.objects.filter(type__in=types).exists():
        return 0
    members = list(Member.objects.filter(organization=org).order_by("id"))
    return expiry_dates_for(members, types, random.Random(seed), clock.today_in(org.timezone))
