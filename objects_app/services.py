"""Writes on objects (with their sharing and totals), remarks and maintenance items.

A remark moves open → acknowledged → closed (acknowledging may be skipped; closed is final). Each step, and
each comment, is recorded as a RemarkEvent (the history the API shows), in the same transaction as the
change, and so is the webhooks' event (document 3: remark.create; remark.update with change acknowledged,
commented or closed). Each service is one transaction and takes "now" from apicore.clock.
"""

from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext

from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from objects_app.events import object_event_record
from objects_app.signals import object_deleting

from .models import BookableObject, ObjectShare, Remark, RemarkAction, RemarkEvent, RemarkState, StatusLevel
from .time_summary import object_totals_move

# What each step tells webhooks in remark.update's data.change (document 3).
CHANGE_OF = {
    RemarkAction.ACKNOWLEDGED: "acknowledged",
    RemarkAction.COMMENTED: "commented",
    RemarkAction.CLOSED: "closed",
}

DESCRIPTION_MAX_LENGTH = 4000


def _field_problem(field: str, message: str) -> ServiceError:
    return ServiceError(
        ErrorCode.INVALID_FIELD,
        f"Check {field}.",
        errors=[FieldProblem(field, ErrorCode.INVALID_FIELD.code, message)],
    )


def _refused(message: str) -> ServiceError:
    """A step the remark's state does not allow (409)."""
    return ServiceError(ErrorCode.NOT_MODIFIED, message)


def _locked(remark: Remark) -> Remark:
    """The remark's row (with its object, for the webhooks), locked until the transaction ends, so that two
    steps never race."""
    return Remark.objects.select_for_update(of=("self",)).select_related("object").get(pk=remark.pk)


def _record(remark: Remark, action: str, by, text: str = "") -> RemarkEvent:
    """The step in the remark's history, and the webhooks' remark.update about it."""
    event = RemarkEvent.objects.create(remark=remark, action=action, text=text, at=clock.now(), by=by)
    _tell_webhooks("remark.update", remark, change=CHANGE_OF[action])
    return event


def _tell_webhooks(event_type: str, remark: Remark, change: str | None = None) -> None:
    object_event_record(event_type=event_type, object=remark.object, entity_id=remark.pk, change=change)


def _clean_text(value, field: str) -> str:
    text = (value or "").strip() if isinstance(value, str) or value is None else None
    if text is None:
        raise _field_problem(field, f"{field} must be text.")
    if not text:
        raise _field_problem(field, f"{field} must not be empty.")
    if len(text) > DESCRIPTION_MAX_LENGTH:
        raise _field_problem(field, f"{field} must be at most {DESCRIPTION_MAX_LENGTH} characters.")
    if "\x00" in text:
        raise _field_problem(field, f"{field} must not contain NUL.")
    return text


@transaction.atomic
def remark_create(*, object: BookableObject, description: str, category: int, by) -> Remark:
    """Write a remark on the object: open, written now by `by` (a login, or None)."""
    description = _clean_text(description, "description")
    if category not in StatusLevel.values:
        raise _field_problem("category", "category must be 0 (info), 1 (yellow) or 2 (red).")
    remark = Remark.objects.create(
        object=object, description=description, category=category, created_at=clock.now(), created_by=by
    )
    _tell_webhooks("remark.create", remark)
    return remark


@transaction.atomic
def remark_acknowledge(*, remark: Remark, by) -> Remark:
    """Acknowledge an open remark (someone has seen it and takes care of it)."""
    current = _locked(remark)
    if current.state == RemarkState.CLOSED:
        raise _refused("The remark is closed; a closed remark cannot be acknowledged.")
    if current.state == RemarkState.ACKNOWLEDGED:
        raise _refused("The remark is already acknowledged.")
    current.state = RemarkState.ACKNOWLEDGED
    current.save(update_fields=["state"])
    _record(current, RemarkAction.ACKNOWLEDGED, by)
    return current


@transaction.atomic
def remark_comment(*, remark: Remark, text: str, by) -> Remark:
    """Add a comment to a remark that is not closed; its state stays."""
    text = _clean_text(text, "text")
    current = _locked(remark)
    if current.state == RemarkState.CLOSED:
        raise _refused("The remark is closed; a closed remark cannot be commented.")
    _record(current, RemarkAction.COMMENTED, by, text)
    return current


@transaction.atomic
def remark_close(*, remark: Remark, by) -> Remark:
    """Close a remark (open or acknowledged). Closed is final."""
    current = _locked(remark)
    if current.state == RemarkState.CLOSED:
        raise _refused("The remark is already closed.")
    current.state = RemarkState.CLOSED
    current.save(update_fields=["state"])
    _record(current, RemarkAction.CLOSED, by)
    return current


# --- objects -------------------------------------------------------------------------------------------------

# What an object is made and changed with (besides its organization); its time summary's totals apart.
OBJECT_FIELDS = (
    "registration",
    "category",
    "type_designator",
    "type_name",
    "comment",
    "active",
    "has_status",
    "thumbnail",
    "use_expected_airborne",
    "force_expected_time",
    "max_booking_length",
    "queue_allowed",
    "disclaimer_headline",
    "disclaimer_text",
)
# The time summary: the totals before the first logged flight plus every logged flight since (the flight log
# moves them: objects_app.time_summary.object_totals_move).
TOTALS = ("airborne_minutes", "block_minutes", "tach_hours", "landings")


def _check_names(fields: dict, allowed) -> None:
    unknown = sorted(set(fields) - set(allowed))
    if unknown:
        raise TypeError(f"not fields of an object: {', '.join(unknown)}")


@transaction.atomic
def object_create(*, organization, **fields) -> BookableObject:
    """A new object of the organization, with the fields of OBJECT_FIELDS and its starting totals (TOTALS, the
    totals before its first logged flight; 0 when not given)."""
    _check_names(fields, (*OBJECT_FIELDS, *TOTALS))
    obj = BookableObject(organization=organization, **fields)
    obj.save()
    return obj


@transaction.atomic
def object_update(*, object: BookableObject, seen_totals: dict | None = None, **changes) -> BookableObject:
    """Change fields of an object (OBJECT_FIELDS, and `organization` for support) and set its totals (TOTALS).

    A total is set the way the caller saw it change: from `seen_totals[name]` (the value shown when the change
    began; the stored value when not given) to the value given. The stored total moves by that difference, in
    SQL, so a flight logged meanwhile stays counted. Only the fields given are written."""
    _check_names(changes, ("organization", *OBJECT_FIELDS, *TOTALS))
    current = BookableObject.objects.select_for_update().filter(pk=object.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such object.")
    seen = seen_totals or {}
    differences = {
        name: changes[name] - (seen[name] if seen.get(name) is not None else getattr(current, name))
        for name in TOTALS
        if name in changes
    }
    columns = [name for name in changes if name not in TOTALS]
    for name in columns:
        setattr(current, name, changes[name])
    if columns:
        current.save(update_fields=columns)
    moved = {name: difference for name, difference in differences.items() if difference}
    if moved:
        object_totals_move(object_id=current.pk, **moved)
        current.refresh_from_db(fields=list(TOTALS))
    return current


def _share_refused(message: str) -> ServiceError:
    return ServiceError(
        ErrorCode.INVALID_FIELD, message, errors=[FieldProblem("organization", ErrorCode.INVALID_FIELD.code, message)]
    )


@transaction.atomic
def object_share(*, object: BookableObject, organization) -> ObjectShare:
    """Share the object with another organization: its members see and book it, and its webhooks hear of the
    object's bookings, flights and remarks. Never with the object's own organization (400 10006 naming
    `organization`); sharing twice is sharing once."""
    if organization.pk == object.organization_id:
        raise _share_refused(gettext("An object cannot be shared with its own organization."))
    share, _created = ObjectShare.objects.get_or_create(object=object, organization=organization)
    return share


@transaction.atomic
def object_unshare(*, object: BookableObject, organization) -> None:
    """Stop sharing the object with the organization (nothing when it was not shared)."""
    ObjectShare.objects.filter(object=object, organization=organization).delete()


@transaction.atomic
def object_delete(*, object: BookableObject) -> None:
    """Delete an object with its bookings, shares, remarks and maintenance items.

    Its bookings that have not ended are told to webhooks as booking.delete (document 3) before anything goes:
    the shares are still there, so the organizations the object is shared with hear of it too. Refused with
    409 10106 while flights are logged on it (the flight log keeps its objects), and then nothing is told."""
    # The object's row locked: a booking being made on it meanwhile waits (its foreign key locks the row too)
    # and then fails, so no booking goes with the object untold.
    current = BookableObject.objects.select_for_update().filter(pk=object.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such object.")
    object_deleting.send(sender=BookableObject, object=current)  # bookings tells of those not ended
    try:
        current.delete()
    except ProtectedError as error:
        raise ServiceError(
            ErrorCode.HAS_DEPENDENTS, "The object has logged flights; an object with flights cannot be deleted."
        ) from error


# --- maintenance ---------------------------------------------------------------------------------------------


def maintenance_limits_check(*, due_date, due_airborne, hard_airborne) -> None:
    """A maintenance item needs at least one limit, and its grounding limit is not below its due hours."""
    if due_date is None and due_airborne is None and hard_airborne is None:
        raise _field_problem("due_date", "Give a due date or airborne hours at which the item is due.")
    if due_airborne is not None and hard_airborne is not None and hard_airborne < due_airborne:
        raise _field_problem("hard_airborne", "The grounding limit must not be below the hours at which it is due.")
