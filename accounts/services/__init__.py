"""Writes on organizations, logins and members."""

from django.db import IntegrityError, transaction

from accounts.models import ExpiryDateType, Member, MemberRole, Organization, Role, UserExpiryDate
from accounts.services.files import expiry_images_delete_after_commit
from accounts.signals import organization_deleting
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from objects_app.models import BookableObject


def member_set_roles(*, member: Member, roles: list[str]) -> None:
    wanted = set(roles)
    unknown = wanted - set(Role.values)
    if unknown:
        raise ValueError(f"Unknown roles: {sorted(unknown)}")
    member.roles.exclude(role__in=wanted).delete()
    existing = set(member.roles.values_list("role", flat=True))
    MemberRole.objects.bulk_create(MemberRole(member=member, role=role) for role in sorted(wanted - existing))


# --- expiry date types ----------------------------------------------------------------------------

EXPIRY_TYPE_SETTINGS = (
    "may_never_expire",
    "members_can_change",
    "image_required",
    "booking_required",
    "booking_warning_only",
    "booking_also_for_students",
    "booking_excluded_object_ids",
    "reminders_at_login",
    "reminders_days_before",
)


# --- organizations ---------------------------------------------------------------------------------------


@transaction.atomic
def organization_delete(*, organization: Organization) -> None:
    """Delete an organization with everything that is its own (members, objects and their bookings, its
    webhooks ...). The organizations its objects are shared with hear of the bookings that go with them
    (booking.delete of each booking not ended, recorded before anything goes, while the shares still name them);
    the organization's own webhooks go with it. 404 10100 when it is gone already."""
    current = Organization.objects.select_for_update().filter(pk=organization.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such organization.")
    organization_deleting.send(sender=Organization, organization=current)  # bookings tells the sharing clubs
    current.delete()


def _duplicate_name(field: str = "name") -> ServiceError:
    return ServiceError(
        ErrorCode.DUPLICATE,
        "An expiry date type with this name exists.",
        errors=[FieldProblem(field, ErrorCode.DUPLICATE.code, "The name is in use (letter case does not count).")],
    )


def _check_excluded_objects(organization: Organization, object_ids: list[int] | None) -> None:
    """Excluded objects must be objects the organization books: its own or shared with it (GET /objects)."""
    if not object_ids:
        return
    known = set(BookableObject.objects.visible_to(organization).filter(pk__in=object_ids).values_list("pk", flat=True))
    problems = [
        FieldProblem(
            f"booking.excluded_object_ids[{index}]",
            ErrorCode.INVALID_FIELD.code,
            f"booking.excluded_object_ids[{index}] is not an object of the organization (GET /objects).",
        )
        for index, object_id in enumerate(object_ids)
        if object_id not in known
    ]
    if problems:
        raise ServiceError(ErrorCode.INVALID_FIELD, errors=problems)


@transaction.atomic
def expiry_date_type_create(*, organization: Organization, name: str, **settings) -> ExpiryDateType:
    """Left-out settings default to false, no excluded objects and reminders 30 days before."""
    unknown = set(settings) - set(EXPIRY_TYPE_SETTINGS)
    if unknown:
        raise TypeError(f"Unknown settings: {sorted(unknown)}")
    _check_excluded_objects(organization, settings.get("booking_excluded_object_ids"))
    if ExpiryDateType.objects.filter(organization=organization, name__lower=name.lower()).exists():
        raise _duplicate_name()
    try:
        with transaction.atomic():
            return ExpiryDateType.objects.create(organization=organization, name=name, **settings)
    except IntegrityError:
        # Another request took the name between our check and the insert.
        raise _duplicate_name() from None


@transaction.atomic
def expiry_date_type_update(*, expiry_type: ExpiryDateType, **changes) -> ExpiryDateType:
    """Only the settings given change; the name cannot be changed. Switching on `image_required` makes
    dated members without an image count as expired at once (that is computed, nothing is stored)."""
    unknown = set(changes) - set(EXPIRY_TYPE_SETTINGS)
    if unknown:
        raise TypeError(f"Unknown settings: {sorted(unknown)}")
    if "booking_excluded_object_ids" in changes:
        _check_excluded_objects(expiry_type.organization, changes["booking_excluded_object_ids"])
    for name, value in changes.items():
        setattr(expiry_type, name, value)
    if changes:
        expiry_type.save(update_fields=list(changes))
    return expiry_type


@transaction.atomic
def expiry_date_type_delete(*, expiry_type: ExpiryDateType, delete_dependents: bool = False) -> None:
    dates = UserExpiryDate.objects.filter(type=expiry_type)
    count = dates.count()
    if count and not delete_dependents:
        raise ServiceError(
            ErrorCode.HAS_DEPENDENTS,
            f"Members with a date of this type: {count}. Send delete_dependents=true to delete them too.",
            dependents=[{"name": "user_expiry_dates", "count": count}],
        )
    images = [name for name in dates.exclude(image="").values_list("image", flat=True)]
    dates.delete()
    expiry_type.delete()
    expiry_images_delete_after_commit(images)


from accounts.services.expiry_dates import (  # noqa: E402, F401
    user_expiry_date_delete,
    user_expiry_date_set,
    user_expiry_date_set_image,
)
from accounts.services.users import user_create, user_delete, user_update  # noqa: E402, F401
