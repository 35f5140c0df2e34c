"""Writes on users: a login together with its member record in one organization (Main API POST, PATCH and
DELETE /users). Every function is one transaction and saves nothing when it refuses."""

import re

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError, Q

from accounts.models import Member, Membership, Organization, Role, User, UserEmail, UserExpiryDate, UserGroup
from accounts.services.files import expiry_images_delete_after_commit
from accounts.signals import login_deleting, member_deleting
from accounts.usernames import lookup_key, nfkc, normalize_username, username_problem, username_skeleton
from apicore.errors import ErrorCode, FieldProblem, ServiceError

INVALID = ErrorCode.INVALID_FIELD.code
DUPLICATE = ErrorCode.DUPLICATE.code
TRIAL_ACTIVE_LIMIT = 5
FIRST_MEMBER_NUMBER = 10000
# A mobile country code may be written 46, +46 or 0046; it is stored as "46".
COUNTRY_CODE_FORM = re.compile(r"^(?:\+|00)?([1-9][0-9]{0,2})$")
# Fields only the organization that created the login may change (../shared/DECISIONS.md "Identity and
# tenancy"; docs/decisions.md §3.5 "Logins made by another organization").
LOGIN_OWNED = ("first_name", "last_name", "last_name_particle", "address", "email", "phone")
# Not in the API's PATCH body; the organization website changes them (user_update's keyword-only parameters).
# They describe the person on the shared login, so, like the name, only the creating organization may change them.
LOGIN_OWNED_PERSONAL = ("personal_identification_number", "emergency_contact")
_NOT_GIVEN = object()


# --- checks that need the organization (reported with the body's other problems) -------------------


def user_field_problems(*, organization: Organization, fields: dict) -> list[FieldProblem]:
    """Problems (400 10006) of a POST or PATCH body that the body's form alone cannot show."""
    problems = []
    username = fields.get("username")
    prefix = f"{organization.pk}-"
    refused = username_problem(username) if username is not None else None
    if refused is not None:
        problems.append(refused)
    elif username is not None and not _has_prefix(nfkc(username), prefix):
        problems.append(FieldProblem("username", INVALID, f"username must start with {prefix} and go on after it."))
    membership_id = fields.get("membership_id")
    memberships = Membership.objects.filter(organization=organization, pk=membership_id)
    if membership_id is not None and not memberships.exists():
        message = "membership_id is not a membership of the organization."
        problems.append(FieldProblem("membership_id", INVALID, message))
    group_ids = fields.get("user_groups") or []
    known = set(UserGroup.objects.filter(organization=organization, pk__in=group_ids).values_list("pk", flat=True))
    problems += [
        FieldProblem(f"user_groups[{index}]", INVALID, f"user_groups[{index}] is not a user group of the organization.")
        for index, group_id in enumerate(group_ids)
        if group_id not in known
    ]
    code = ((fields.get("phone") or {}).get("mobile") or {}).get("country_code")
    if code is not None and not COUNTRY_CODE_FORM.match(code):
        path = "phone.mobile.country_code"
        problems.append(FieldProblem(path, INVALID, f"{path} must be written like 46, +46 or 0046."))
    return problems


def _has_prefix(username: str, prefix: str) -> bool:
    return username.startswith(prefix) and username != prefix


def _raise_field_problems(organization: Organization, fields: dict) -> None:
    problems = user_field_problems(organization=organization, fields=fields)
    if problems:
        raise ServiceError(
            ErrorCode.INVALID_FIELD, "Check " + ", ".join(p.field for p in problems) + ".", errors=problems
        )


def _country_code(value: str | None) -> str:
    return COUNTRY_CODE_FORM.match(value).group(1) if value else ""


def _active_limit_reached(organization: Organization) -> bool:
    return organization.is_trial and (
        Member.objects.filter(organization=organization, active=True).count() >= TRIAL_ACTIVE_LIMIT
    )


def _user_limit_error() -> ServiceError:
    return ServiceError(
        ErrorCode.USER_LIMIT_REACHED, f"A trial organization has at most {TRIAL_ACTIVE_LIMIT} active users."
    )


def _lock(organization: Organization) -> None:
    """Serializes member creation and activation in one organization (member numbers, trial limit)."""
    Organization.objects.select_for_update().filter(pk=organization.pk).first()


# --- the parts of a body, onto the models ------------------------------------------------------------

_ADDRESS = {"postal_code": "postal_code", "city": "city", "country": "country"}
_PHONE = {"home": "phone_home", "work": "phone_work"}
_MOBILE = {"country_code": "mobile_country_code", "initial_number": "mobile_initial_number", "number": "mobile_number"}
_EMERGENCY = {
    "name": "emergency_contact_name",
    "phone": "emergency_contact_phone",
    "relation": "emergency_contact_relation",
}
_ACCESS_CARD = {"number": "access_card_number", "code": "access_card_code", "expiry_date": "access_card_expiry_date"}


def _nested(obj, changes: dict | None, columns: dict[str, str]) -> list[str]:
    """Set the columns of the nested fields sent (None empties one); `changes` None empties them all."""
    changed = []
    for key, column in columns.items():
        if changes is None or key in changes:
            value = None if changes is None else changes[key]
            if value is None and obj._meta.get_field(column).get_internal_type() != "DateField":
                value = ""
            if key == "country_code":
                value = _country_code(value)
            setattr(obj, column, value)
            changed.append(column)
    return changed


def _set_address(user: User, address: dict | None) -> list[str]:
    changed = _nested(user, address, _ADDRESS)
    if address is None or "street_address" in address:
        rows = (address or {}).get("street_address") or []
        user.street_address_1, user.street_address_2 = [*rows, "", ""][:2]
        changed += ["street_address_1", "street_address_2"]
    return changed


def _set_phone(user: User, phone: dict | None) -> list[str]:
    changed = _nested(user, phone, _PHONE)
    if phone is None or "mobile" in phone:
        changed += _nested(user, (phone or {}).get("mobile"), _MOBILE)
    return changed


def _set_emails(user: User, addresses: list[str]) -> None:
    """The list replaces the old one; an address that was there before (letter case aside) keeps its invalid
    mark, a new or changed one starts valid."""
    old = {email.address.lower(): email for email in user.emails.all()}
    user.emails.all().delete()
    rows = []
    for position, address in enumerate(addresses):
        kept = old.get(address.lower())
        rows.append(
            UserEmail(
                user=user,
                position=position,
                address=address,
                invalid=kept.invalid if kept else False,
                invalid_reason=kept.invalid_reason if kept else "",
            )
        )
    UserEmail.objects.bulk_create(rows)


# --- create ---------------------------------------------------------------------------------------


def _next_member_number(organization: Organization) -> str:
    numbers = Member.objects.filter(organization=organization).values_list("member_number", flat=True)
    numeric = [int(number) for number in numbers if number.isascii() and number.isdigit()]
    return str(max(numeric) + 1) if numeric else str(FIRST_MEMBER_NUMBER)


def _duplicates(organization: Organization, username: str, member_number: str | None, ksak: str | None) -> list:
    in_use = []
    # The same username in any letter case, or one that looks like it (the same skeleton: docs/decisions.md
    # §3.18): two lookups in unique indexes, never a scan of the organization's usernames.
    key = lookup_key(username)
    same = Q(username__lower=key) | Q(username_skeleton=username_skeleton(username))
    found = list(User.objects.filter(same).values_list("username", flat=True)[:2])
    if any(lookup_key(name) == key for name in found):
        in_use.append(FieldProblem("username", DUPLICATE, "The username is in use (letter case does not count)."))
    elif found:
        message = "The username looks like one in use (look-alike letters and accents do not count)."
        in_use.append(FieldProblem("username", DUPLICATE, message))
    if member_number and Member.objects.filter(organization=organization, member_number=member_number).exists():
        in_use.append(FieldProblem("member_number", DUPLICATE, "The member number is in use in the organization."))
    if ksak and User.objects.filter(ksak_member_number=ksak).exists():
        in_use.append(FieldProblem("ksak_member_number", DUPLICATE, "The KSAK member number is in use."))
    return in_use


def _duplicate_error(in_use: list[FieldProblem]) -> ServiceError:
    names = ", ".join(problem.field for problem in in_use)
    return ServiceError(ErrorCode.DUPLICATE, f"In use: {names}.", errors=in_use)


@transaction.atomic
def user_create(
    *,
    organization: Organization,
    username: str,
    first_name: str,
    last_name: str,
    membership_id: int,
    member_number: str | None = None,
    ksak_member_number: str | None = None,
    external_customer_number: str = "",
    last_name_particle: str = "",
    personal_identification_number: str = "",
    user_groups: list[int] | None = None,
    email: list[str] | None = None,
    address: dict | None = None,
    phone: dict | None = None,
    emergency_contact: dict | None = None,
) -> Member:
    """A new login (no usable password: the person sets one with 'Reset my password') and its active member
    record. All or nothing."""
    fields = {"username": username, "membership_id": membership_id, "user_groups": user_groups, "phone": phone}
    _raise_field_problems(organization, fields)
    # Stored in NFKC (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §3.13 "Usernames: what is the
    # same"): full-width `1-erik` is `1-erik`, a duplicate of it.
    username = normalize_username(username)
    _lock(organization)
    in_use = _duplicates(organization, username, member_number, ksak_member_number)
    if in_use:
        raise _duplicate_error(in_use)
    if _active_limit_reached(organization):
        raise _user_limit_error()
    user = User(
        username=username,
        first_name=first_name,
        last_name=last_name,
        last_name_particle=last_name_particle,
        personal_identification_number=personal_identification_number,
        ksak_member_number=ksak_member_number or None,
    )
    user.set_unusable_password()
    _set_address(user, address or {})
    _set_phone(user, phone or {})
    _nested(user, emergency_contact or {}, _EMERGENCY)
    try:
        with transaction.atomic():
            user.save()
            member = Member.objects.create(
                user=user,
                organization=organization,
                member_number=member_number or _next_member_number(organization),
                membership_id=membership_id,
                external_customer_number=external_customer_number,
                active=True,
            )
    except IntegrityError:
        # Another request took a value between our check and the insert.
        raise _duplicate_error(
            _duplicates(organization, username, member_number, ksak_member_number)
            or [FieldProblem("member_number", DUPLICATE, "The member number is in use in the organization.")]
        ) from None
    if user_groups:
        member.user_groups.set(set(user_groups))
    _set_emails(user, email or [])
    return member


# --- update ---------------------------------------------------------------------------------------


@transaction.atomic
def user_update(
    *,
    member: Member,
    personal_identification_number=_NOT_GIVEN,
    emergency_contact=_NOT_GIVEN,
    **changes,
) -> Member:
    """Only the fields given change; None (or "") empties a value; nested objects change only the nested
    fields given, lists replace the list. Fields: first_name, last_name, last_name_particle, active, email,
    address, phone, misc_info, internal_notes, access_card; and, for the organization website,
    personal_identification_number (text) and emergency_contact ({name, phone, relation}), which only the
    organization that created the login may change (as the name)."""
    organization, user = member.organization, member.user
    personal = {
        name: value
        for name, value in (
            ("personal_identification_number", personal_identification_number),
            ("emergency_contact", emergency_contact),
        )
        if value is not _NOT_GIVEN
    }
    _raise_field_problems(organization, changes)
    refused = [name for name in LOGIN_OWNED if name in changes] + [n for n in LOGIN_OWNED_PERSONAL if n in personal]
    if refused and not user.created_by(organization.pk):
        raise ServiceError(
            ErrorCode.NOT_MODIFIED,
            f"The login was not created by this organization, so it cannot change {', '.join(refused)}.",
            errors=[FieldProblem(name, ErrorCode.NOT_MODIFIED.code, f"{name} cannot be changed.") for name in refused],
        )
    if changes.get("active") is True and not member.active:
        _lock(organization)
        if _active_limit_reached(organization):
            raise _user_limit_error()

    user_columns = []
    for name in ("first_name", "last_name", "last_name_particle"):
        if name in changes:
            setattr(user, name, changes[name] or "")
            user_columns.append(name)
    if "address" in changes:
        user_columns += _set_address(user, changes["address"])
    if "phone" in changes:
        user_columns += _set_phone(user, changes["phone"])
    if "personal_identification_number" in personal:
        user.personal_identification_number = personal["personal_identification_number"] or ""
        user_columns.append("personal_identification_number")
    if "emergency_contact" in personal:
        user_columns += _nested(user, personal["emergency_contact"], _EMERGENCY)
    if user_columns:
        user.save(update_fields=user_columns)
    if "email" in changes:
        _set_emails(user, changes["email"] or [])

    member_columns = []
    if "active" in changes:
        member.active = changes["active"]
        member_columns.append("active")
    for name in ("misc_info", "internal_notes"):
        if name in changes:
            setattr(member, name, changes[name] or "")
            member_columns.append(name)
    if "access_card" in changes:
        member_columns += _nested(member, changes["access_card"], _ACCESS_CARD)
    if member_columns:
        member.save(update_fields=member_columns)
    return member


# --- delete ---------------------------------------------------------------------------------------


@transaction.atomic
def user_delete(*, member: Member) -> None:
    """The member record goes; the login too when it belongs to no other organization and nothing else
    (transactions) keeps it. An administrator or a member with a balance is refused (409 10105)."""
    if member.roles.filter(role=Role.ADMIN).exists():
        raise ServiceError(ErrorCode.NOT_MODIFIED, "An administrator of the organization cannot be deleted.")
    member_deleting.send(sender=Member, member=member)  # economy refuses a balance that is not zero
    user = member.user
    images = list(UserExpiryDate.objects.filter(member=member).exclude(image="").values_list("image", flat=True))
    member.delete()
    if not Member.objects.filter(user=user).exists():
        try:
            with transaction.atomic():
                login_deleting.send(sender=User, user=user)
                user.delete()
        except ProtectedError:
            pass  # other records (transactions) still refer to the login; it stays, without a member record here
    expiry_images_delete_after_commit(images)
