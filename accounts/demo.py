"""The demo world: two clubs, their administrators, members and API tokens, the same on every run.

Later parts of the service add their data through `build_world`; the printed keys stay stable.
"""

import hashlib
from dataclasses import dataclass, field

from django.contrib.auth.hashers import make_password

from .models import MODULES, Member, Membership, Organization, User, UserGroup
from .services import api_token_create, member_set_roles

ADMIN_PASSWORD = "demo-admin-2026"
MEMBER_PASSWORD = "demo-member-2026"
SUPPORT_PASSWORD = "demo-support-2026"


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


def _club(name: str, *, timezone: str, icao: str, country: str, lat: str, lon: str, **extra) -> Organization:
    return Organization.objects.create(
        name=name,
        timezone=timezone,
        reference_icao=icao,
        country=country,
        latitude=lat,
        longitude=lon,
        **extra,
    )


def _member(org: Organization, user: User, number: str, membership: Membership | None, roles=()) -> Member:
    member = Member.objects.create(user=user, organization=org, member_number=number, membership=membership)
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


def build_world() -> dict:
    admin_hash = make_password(ADMIN_PASSWORD)
    member_hash = make_password(MEMBER_PASSWORD)
    User.objects.create_superuser(username="support", password=SUPPORT_PASSWORD, email="support@example.com")

    club = _club(
        "Västerås Flygklubb", timezone="Europe/Stockholm", icao="ESOW", country="SE", lat="59.589444", lon="16.633611"
    )
    senior = Membership.objects.create(organization=club, name="Senior")
    Membership.objects.create(organization=club, name="Junior")
    Membership.objects.create(organization=club, name="Passive")
    UserGroup.objects.create(organization=club, name="Instructors")
    UserGroup.objects.create(organization=club, name="Board")

    admin = _login(f"{club.pk}-admin", "Karin", "Lindqvist", admin_hash, is_staff=True)
    _member(club, admin, "1001", senior, roles=["admin", "board_member"])
    members = [{"id": admin.pk, "username": admin.username, "password": ADMIN_PASSWORD}]
    for number, (first, last) in enumerate([("Erik", "Johansson"), ("Anna", "Berg"), ("Lars", "Nilsson")], 1002):
        user = _login(f"{club.pk}-{first.lower()}", first, last, member_hash)
        _member(club, user, str(number), senior)
        members.append({"id": user.pk, "username": user.username, "password": MEMBER_PASSWORD})

    all_rights = {module: "rw" for module in MODULES}
    tokens = {
        "full": _token(club, admin, "full", 100001, all_rights),
        "read_only": _token(club, admin, "read only", 100002, {module: "r" for module in MODULES}),
        "no_rights": _token(club, admin, "no rights", 100003, {}),
    }

    second = _club(
        "Bergen Flyklubb", timezone="Europe/Oslo", icao="ENBR", country="NO", lat="60.293611", lon="5.218056"
    )
    Membership.objects.create(organization=second, name="Aktiv")
    second_admin = _login(f"{second.pk}-admin", "Ola", "Nordmann", admin_hash, is_staff=True)
    _member(second, second_admin, "1", None, roles=["admin"])

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
            "tokens": {"full": _token(second, second_admin, "full", 200001, all_rights)},
        },
    }
