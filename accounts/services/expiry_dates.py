"""Writes on members' expiry dates (PUT and DELETE /users/{id}/expiry-dates/{type_id})."""

import datetime as dt

from django.db import IntegrityError, transaction

from accounts.expiry import NEVER_EXPIRES
from accounts.models import ExpiryDateType, Member, UserExpiryDate
from accounts.services.files import expiry_images_delete_after_commit
from apicore.errors import ErrorCode, FieldProblem, ServiceError


def _refused(message: str) -> ServiceError:
    return ServiceError(
        ErrorCode.INVALID_FIELD,
        "Check expiry_date.",
        errors=[FieldProblem("expiry_date", ErrorCode.INVALID_FIELD.code, message)],
    )


def _check_date(expiry_type: ExpiryDateType, expiry_date: dt.date) -> None:
    if expiry_date > NEVER_EXPIRES:
        raise _refused("expiry_date must not be after 2999-12-31 (which means never expires).")
    if expiry_date == NEVER_EXPIRES and not expiry_type.may_never_expire:
        raise _refused(f"expiry_date cannot be 2999-12-31: the type {expiry_type.name} may not be never-expiring.")


@transaction.atomic
def user_expiry_date_set(*, member: Member, expiry_type: ExpiryDateType, expiry_date: dt.date) -> UserExpiryDate:
    """Set the member's date of the type and return it.

    A new date is created; a different date replaces the old one, restarts the reminders and removes the stored
    image (its file is deleted once the transaction commits); the same date saves nothing at all. 2999-12-31
    needs `may_never_expire` on the type, also when it is the member's current date (400 10006).
    """
    if expiry_type.organization_id != member.organization_id:
        raise ValueError("The member and the expiry date type belong to different organizations.")
    _check_date(expiry_type, expiry_date)
    rows = UserExpiryDate.objects.filter(member=member, type=expiry_type)
    current = rows.first()
    if current is not None and current.expiry_date == expiry_date:
        return current
    if current is None:
        try:
            with transaction.atomic():
                return UserExpiryDate.objects.create(member=member, type=expiry_type, expiry_date=expiry_date)
        except IntegrityError:
            pass  # Another request created it since we looked: change that one below.
    # Changing: lock the row, so that the image we remove is the one that was stored.
    current = rows.select_for_update().get()
    if current.expiry_date == expiry_date:
        return current
    old_image = current.image.name
    current.expiry_date = expiry_date
    current.reminded_at = None
    current.image = ""
    current.save(update_fields=["expiry_date", "reminded_at", "image"])
    expiry_images_delete_after_commit([old_image])
    return current


@transaction.atomic
def user_expiry_date_delete(*, member: Member, expiry_type: ExpiryDateType) -> None:
    """Remove the member's date of the type and its image (the file goes once the transaction commits).
    404 (10100) when the member has no date of the type."""
    current = UserExpiryDate.objects.select_for_update().filter(member=member, type=expiry_type).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "The user has no date of this type.")
    old_image = current.image.name
    current.delete()
    expiry_images_delete_after_commit([old_image])


@transaction.atomic
def user_expiry_date_set_image(*, member: Member, expiry_type: ExpiryDateType, image) -> UserExpiryDate:
    """Store `image` (an uploaded file) as the image of the member's date of the type, or remove the image when
    `image` is None or False. The replaced file is deleted once the transaction commits. 404 (10100) when the
    member has no date of the type. The date itself and its reminders stay as they are."""
    current = UserExpiryDate.objects.select_for_update().filter(member=member, type=expiry_type).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "The user has no date of this type.")
    old_image = current.image.name
    current.image = image or ""
    current.save(update_fields=["image"])
    if old_image != current.image.name:
        expiry_images_delete_after_commit([old_image])
    return current
