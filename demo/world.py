"""The demo world: three clubs, their administrators, members and API tokens, the same on every run.

- Västerås Flygklubb: about 40 members with every block of the User resource filled in (memberships,
  user groups, roles, emails with invalid marks, addresses, phones, emergency contacts, accounts with
  transactions, access cards, expiry dates of five types), some inactive or locked, and three logins made
  by Bergen Flyklubb that are members here too.
- Bergen Flyklubb: the second organization, whose logins (`2-...`) are also members in Västerås.
- Kiruna Flygklubb: a trial organization (no flight log) with 4 active members and one inactive.
- Västerås has one webhook, subscribed to everything, at DEMO_WEBHOOK_URL (default: where `make run` starts
  `manage.py webhook_listen`); `"webhooks"` in the JSON is null where that address is refused.
- The Mobile API v5 (`"mobile"` in the JSON, demo/mobile.py): a public and a confidential app client with
  fixed client ids and redirect addresses in the app's own scheme, a member who flies (as pilot and as
  instructor), pays and may book, another member of the same club with bookings in the coming weeks, and
  pictures of a few aircraft.

Fixed data only: names and numbers are written out in demo/data/ (clubs.yaml, members.yaml; the operations'
in fleet.yaml and flying.yaml, the Mobile part's in mobile.yaml), and the few values that vary between members
come from random.Random with a fixed seed (demo/people.py). Expiry dates and transaction dates are counted
from the club's today, so that the demo always shows dates that are expired, near and far; the printed JSON
has no dates and is the same on every run. Later parts of the service add their data through `build_world`;
the printed keys stay stable.
"""

import copy
import datetime as dt
import hashlib
import os
from decimal import Decimal

from django.contrib.auth.hashers import make_password

from accounts.models import Membership, Organization, User, UserEmail, UserGroup
from accounts.services import expiry_date_type_create, user_create, user_expiry_date_set, user_update
from apicore import clock
from demo.common import (
    ADMIN_PASSWORD,
    MEMBER_PASSWORD,
    SUPPORT_PASSWORD,
    demo_secret,
    make_login,
    make_member,
    make_token,
    slug,
)
from demo.datafiles import load
from demo.mobile import build_mobile
from demo.operations import build_demo_operations
from demo.people import (
    Details,
    default_transactions,
    first_club_people,
    save_scans,
    set_dates,
    transactions,
)
from economy.models import Transaction
from main_api.models import MODULES
from webhooks.addresses import AddressRefused
from webhooks.services import webhook_create

# Where `make run` starts `manage.py webhook_listen` (bin/run-demo reads the address back from the JSON).
DEMO_WEBHOOK_URL = "http://127.0.0.1:8766/webhook"
CLUBS = load("clubs")


def build_world() -> dict:
    admin_hash = make_password(ADMIN_PASSWORD)
    member_hash = make_password(MEMBER_PASSWORD)
    User.objects.create_superuser(username="support", password=SUPPORT_PASSWORD, email="support@example.com")
    details = Details()
    data = CLUBS["vasteras"]

    club = Organization.objects.create(**data["organization"])
    today = clock.today_in(club.timezone)
    memberships = {name: Membership.objects.create(organization=club, name=name) for name in data["memberships"]}
    groups = {name: UserGroup.objects.create(organization=club, name=name) for name in data["groups"]}
    for setting in data["app_settings"]:
        club.app_settings.create(**setting)

    admin_data = data["admin"]
    admin = make_login(
        f"{club.pk}-admin",
        admin_hash,
        is_staff=True,
        **admin_data["login"],
        **details.address(0),
        **details.mobile(),
    )
    UserEmail.objects.create(user=admin, position=0, address=admin_data["email"])
    admin_member = make_member(
        club,
        admin,
        admin_data["number"],
        memberships[admin_data["membership"]],
        roles=admin_data["roles"],
        **admin_data["member"] | {"annual_fee": Decimal(admin_data["member"]["annual_fee"])},
    )
    admin_member.user_groups.set([groups[name] for name in admin_data["groups"]])

    people = first_club_people(club, member_hash, memberships, groups, details)
    by_username = {member.user.username: member for _person, member in people}
    members = [{"id": admin.pk, "username": admin.username, "password": ADMIN_PASSWORD}]
    for tail in data["listed_members"]:
        user = by_username[f"{club.pk}-{tail}"].user
        members.append({"id": user.pk, "username": user.username, "password": MEMBER_PASSWORD})

    all_rights = {module: "rw" for module in MODULES}
    tokens = {
        "full": make_token(club, admin, "full", 100001, all_rights),
        "read_only": make_token(club, admin, "read only", 100002, {module: "r" for module in MODULES}),
        "no_rights": make_token(club, admin, "no rights", 100003, {}),
    }

    types = {key: expiry_date_type_create(organization=club, **fields) for key, fields in data["expiry_types"].items()}
    scans = []
    set_dates(admin_member, types, admin_data["dates"], today, scans)
    money = transactions(
        club,
        admin,
        [(days, amount, comment.format(year=today.year)) for days, amount, comment in admin_data["transactions"]],
        today,
    )
    for index, (person, member) in enumerate(people, 1):
        dates = person.dates if person.dates is not None else details.default_dates(person)
        set_dates(member, types, dates, today, scans)
        money += transactions(club, member.user, default_transactions(person, index, today), today)

    second, second_admin, logins = _bergen(
        club, admin_hash, member_hash, memberships, groups, types, details, today, scans
    )
    members += [{"id": user.pk, "username": user.username, "password": MEMBER_PASSWORD} for user in logins]
    money += transactions(club, by_username[f"{club.pk}-anna"].user, [(3, "-845.00", "Flight SE-MIX 0:35")], today)
    Transaction.objects.bulk_create(money)
    save_scans(scans)
    second_token = make_token(second, second_admin, "full", 200001, all_rights)
    operations = build_demo_operations(club, second)
    mobile = build_mobile(club, operations, today)

    trial, trial_admin = _trial_club(admin_hash, member_hash)
    tokens["trial_full"] = make_token(trial, trial_admin, "full", 300001, all_rights)
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


def _bergen(club, admin_hash, member_hash, memberships, groups, types, details: Details, today: dt.date, scans):
    """Bergen Flyklubb, its administrator and the logins it made that are members in Västerås too (clubs.yaml:
    bergen). Returns (organization, administrator, those logins)."""
    data = CLUBS["bergen"]
    second = Organization.objects.create(**data["organization"])
    aktiv, *_others = [Membership.objects.create(organization=second, name=name) for name in data["memberships"]]
    second_admin = make_login(f"{second.pk}-admin", admin_hash, is_staff=True, **data["admin"]["login"])
    make_member(second, second_admin, data["admin"]["member_number"], None, roles=["admin"])
    bergen_medical = expiry_date_type_create(organization=second, name=data["medical"], booking_required=True)
    logins = []
    for person in data["members"]:
        user = make_login(
            f"{second.pk}-{person['username']}",
            member_hash,
            **person["login"],
            city="Bergen",
            country="NO",
            **details.mobile("47"),
        )
        UserEmail.objects.create(user=user, position=0, address=f"{person['username']}@example.no")
        at_home = make_member(second, user, person["number"], aktiv, roles=person.get("roles", ()))
        user_expiry_date_set(member=at_home, expiry_type=bergen_medical, expiry_date=today + dt.timedelta(days=150))
        vasteras = person["vasteras"]
        here = make_member(
            club,
            user,
            vasteras["number"],
            memberships[vasteras["membership"]],
            roles=vasteras.get("roles", ()),
            annual_fee=Decimal(CLUBS["vasteras"]["memberships"][vasteras["membership"]]),
            external_customer_number=f"K{20000 + int(vasteras['number'])}",
            misc_info="Member of Bergen Flyklubb too.",
        )
        if vasteras.get("groups"):
            here.user_groups.set([groups[name] for name in vasteras["groups"]])
        if vasteras.get("dates"):
            set_dates(here, types, vasteras["dates"], today, scans)
        logins.append(user)
    return second, second_admin, logins


def _webhook(club: Organization) -> dict | None:
    """The club's webhook, subscribed to everything, at DEMO_WEBHOOK_URL; None where the address is refused
    (plain http on loopback needs WEBHOOK_ALLOW_LOOPBACK, which `make run` sets and the bench does not)."""
    url = os.environ.get("DEMO_WEBHOOK_URL") or DEMO_WEBHOOK_URL
    # Fixed secrets, like the API tokens', so that a receiver set up against the demo keeps working after
    # `make run` again.
    token = demo_secret(f"{club.pk}-webhook-token")
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
    data = CLUBS["kiruna"]
    trial = Organization.objects.create(**data["organization"])
    senior = Membership.objects.create(organization=trial, name=data["membership"])
    admin = make_login(f"{trial.pk}-admin", admin_hash, is_staff=True, **data["admin"]["login"])
    UserEmail.objects.create(user=admin, position=0, address=data["admin"]["email"])
    make_member(trial, admin, data["admin"]["member_number"], senior, roles=["admin"])
    made = []
    for first, last in data["members"]:
        tail = slug(first, last)
        made.append(
            user_create(
                organization=trial,
                username=f"{trial.pk}-{tail}",
                first_name=first,
                last_name=last,
                membership_id=senior.pk,
                email=[f"{tail}@example.com"],
                address=copy.deepcopy(data["address"]),
                phone={"mobile": {"country_code": "+46", "initial_number": "70", "number": "5550" + str(len(made))}},
            )
        )
    user_update(member=made[-1], active=False)
    User.objects.filter(members__organization=trial).exclude(pk=admin.pk).update(password=member_hash)
    return trial, admin
