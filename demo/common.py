"""What the parts of the demo world share: the demo passwords, the fixed secrets, and small makers of rows."""

import hashlib

from accounts.models import Member, Membership, Organization, User
from accounts.services import member_set_roles
from main_api.services import api_token_create

ADMIN_PASSWORD = "demo-admin-2026"
MEMBER_PASSWORD = "demo-member-2026"
SUPPORT_PASSWORD = "demo-support-2026"
ASCII = str.maketrans({"å": "a", "ä": "a", "ö": "o", "ø": "o", "é": "e", "Å": "A", "Ä": "A", "Ö": "O", "Ø": "O"})


def demo_secret(label: str) -> str:
    # Deterministic so that scripts written against the demo keep working after `make run` again.
    return "demo_" + hashlib.sha256(f"flyclub-demo-{label}".encode()).hexdigest()[:38]


def slug(*parts: str) -> str:
    return ".".join(part.translate(ASCII).lower().replace(" ", "") for part in parts if part)


def make_login(username: str, password_hash: str, **fields) -> User:
    user = User(username=username, password=password_hash, **fields)
    user.save()
    return user


def make_member(org: Organization, user: User, number: str, membership: Membership | None, roles=(), **extra) -> Member:
    made = Member.objects.create(user=user, organization=org, member_number=number, membership=membership, **extra)
    if roles:
        member_set_roles(member=made, roles=list(roles))
    return made


def make_token(org, owner, label: str, client_id: int, rights: dict) -> dict:
    _token_obj, secret = api_token_create(
        organization=org,
        owner=owner,
        description=f"Demo: {label}",
        rights=rights,
        client_id=client_id,
        secret=demo_secret(f"{org.pk}-{label}"),
    )
    return {"client_id": str(client_id), "secret": secret}
