"""Writes on remarks and maintenance items.

A remark moves open → acknowledged → closed (acknowledging may be skipped; closed is final). Each step, and
each comment, is recorded as a RemarkEvent (the history the API shows), in the same transaction as the
change. Each service is one transaction and takes "now" from apicore.clock.
"""

from django.db import transaction

from apicore import clock
from apicore.errors import ErrorCode
from apicore.exceptions import FieldProblem, ServiceError

from .models import BookableObject, Remark, RemarkAction, RemarkEvent, RemarkState, StatusLevel

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
    """The remark's row, locked until the transaction ends, so that two steps never race."""
    return Remark.objects.select_for_update().get(pk=remark.pk)


def _record(remark: Remark, action: str, by, text: str = "") -> RemarkEvent:
    return RemarkEvent.objects.create(remark=remark, action=action, text=text, at=clock.now(), by=by)


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
    return Remark.objects.create(
        object=object, description=description, category=category, created_at=clock.now(), created_by=by
    )


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


# --- maintenance ---------------------------------------------------------------------------------------------


def maintenance_limits_check(*, due_date, due_airborne, hard_airborne) -> None:
    """A maintenance item needs at least one limit, and its grounding limit is not below its due hours."""
    if due_date is None and due_airborne is None and hard_airborne is None:
        raise _field_problem("due_date", "Give a due date or airborne hours at which the item is due.")
    if due_airborne is not None and hard_airborne is not None and hard_airborne < due_airborne:
        raise _field_problem("hard_airborne", "The grounding limit must not be below the hours at which it is due.")
