"""Mobile API v5: the member's bookings calendar and private bookings (document 2).

GET /bookings and GET /bookings/{id}: bookings of the objects the member sees (the organization's own and
those shared with it, active), primary bookings first by start and id, then the queue by start and id. POST
/bookings books by the rules (bookings.rules); POST /bookings/{id}/cut and /cancel cut and cancel the member's
own booking. Writes reply `{data, messages}` with what the website would tell the member, in the language of
Accept-Language. Every booking endpoint answers 403 10301 while the member's organization has booking switched
off; a locked member gets 403 10302 on the writes.
"""

import datetime as dt
import re
from functools import cached_property

from django.db.models import Q
from rest_framework.response import Response

from apicore import clock, params
from apicore.errors import ErrorCode, FieldProblem
from apicore.exceptions import PROBLEM_CONTENT_TYPE
from apicore.openapi import DeclaredAutoSchema
from apicore.openapi_document import JSON, PROBLEM, component
from apicore.problems import raise_problems
from apicore.schema import Field as BodyField
from apicore.schema import Int, Invalid, Number, Schema, Text, clean_object
from apicore.views import ItemEndpoint, ListEndpoint
from mobile_api.flavour_v5 import MobileV5Api

from .. import rules, selectors, services
from ..models import Booking
from .mobile_presenters import BookingContext, MobileBookingPresenter

INVALID = ErrorCode.INVALID_FIELD.code
# ISO 8601 with a `Z` or an offset; seconds (and a fraction) optional. No Unix timestamps, no local times.
POINT_IN_TIME = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})$"
)
# The same form for the document, with only what exists and is accepted: the years 1900 to 2999 as written,
# months 01-12, each month's days (29 February in leap years only), hours 00-23, minutes and seconds 00-59,
# offsets under 24 hours. What it matches, the server accepts (no "0000-00-00T00:00Z" is valid data).
_LEAP_YEAR = r"(?:(?:19|2[0-9])(?:0[48]|[2468][048]|[13579][26])|2[048]00)"
_DAY = (
    r"(?:(?:19[0-9]{2}|2[0-9]{3})-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    rf"|{_LEAP_YEAR}-02-29)"
)
EXISTING_POINT_IN_TIME = re.compile(
    rf"^{_DAY}T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{{1,6}})?)?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)


class PointInTime(BodyField):
    """A point in time as ISO 8601 text with `Z` or an offset, seconds optional (`2026-11-25T14:00Z`,
    `2026-11-25T15:00:30+01:00`); kept as UTC. A number (a Unix timestamp) or a time without a zone is
    refused (10006)."""

    def value_schema(self) -> dict:
        return {
            "type": "string",
            "pattern": EXISTING_POINT_IN_TIME.pattern,
            "description": "ISO 8601 with Z or an offset, seconds optional, e.g. 2026-11-25T14:00Z; the years "
            "1900 to 2999.",
        }

    def convert(self, value, path, problems):
        if not isinstance(value, str) or not POINT_IN_TIME.match(value):
            raise Invalid("must be a point in time in ISO 8601 with Z or an offset, such as 2026-11-25T14:00Z")
        try:
            written = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise Invalid("is not a point in time that exists") from None
        # Every zone's local time of it must exist too (the rules compute local days): the years 1900 to 2999
        # as written, which the document's pattern states (in UTC or another zone it is 1899 to 3000 at most).
        if not 1900 <= written.year <= 2999:
            raise Invalid("must lie between the years 1900 and 2999")
        return written.astimezone(dt.UTC)


class ExpectedAirborne(Number):
    """Hours the member expects to fly: its range the document states (bookings.services checks it); where
    it may be given is the organization's and the object's setting, which the description names."""

    def value_schema(self) -> dict:
        return {
            "type": "number",
            "minimum": 0,
            "maximum": float(services.EXPECTED_AIRBORNE_LARGEST),
            "multipleOf": 0.01,
        }


class BookingBody(Schema):
    fields = {
        "object_id": Int(required=True, minimum=1, maximum=10**18 - 1),
        "start_at": PointInTime(required=True),
        "end_at": PointInTime(required=True),
        "comment": Text(max_length=1000, emptiable=True),
        "expected_airborne": ExpectedAirborne(
            emptiable=True,
            description="Hours, 0 to 999.99 with at most two decimals. Only where the organization and the "
            "object use expected airborne times (GET /objects/{id}, block settings: use_expected_airborne), and "
            "required where the object forces it (force_expected_time); else 400 10006.",
        ),
        "seats_left": Int(minimum=0, maximum=32767, emptiable=True),
    }


class CancelBody(Schema):
    fields = {"reason": Text(max_length=500, emptiable=True)}


def _date_from(day, context):
    return selectors.ends_on_or_after(day, context.organization.timezone)


def _date_to(day, context):
    return selectors.starts_on_or_before(day, context.organization.timezone)


def _mine(value: bool, context) -> Q:
    if not value:
        return Q()
    user_id = context.caller.member.user_id
    return Q(user_id=user_id) | Q(student_id=user_id)


MESSAGES = {
    "type": "array",
    "description": "What the website would tell the member, in the language of Accept-Language (sv, en, nb, da).",
    "items": {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["info", "warning"]}, "text": {"type": "string"}},
        "required": ["kind", "text"],
        "additionalProperties": False,
    },
}
# 409 10300: `errors` carries the rule's text without `field` (document 2, POST /bookings body).
RULE_PROBLEM = {
    **PROBLEM,
    "description": "Problem Details; `errors` has one item: the booking rule's text for the member.",
    "properties": {
        **PROBLEM["properties"],
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                "required": ["code", "message"],
                "additionalProperties": False,
            },
        },
    },
}


class BookingWriteSchema(DeclaredAutoSchema):
    """The writes' replies: `{data, messages}`, and 409 10300 with the rule's text in `errors` (no `field`).
    Named by the views' `openapi_schema` (the Mobile document's generator uses it for a declared view)."""

    def success_response(self, operation, excludable: bool) -> dict:
        response = super().success_response(operation, excludable)
        if operation.method != "post":
            return response
        envelope = response["content"][JSON]["schema"]
        envelope["properties"]["messages"] = MESSAGES
        envelope["required"] = [*envelope["required"], "messages"]
        return response

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        result = super().get_operation(path, path_regex, path_prefix, method, registry)
        if path.endswith("/cancel") and "requestBody" in result:
            result["requestBody"]["required"] = False  # `{reason}` is optional, and so is the body itself
        conflict = result["responses"].get("409")
        if conflict is not None:
            schema = conflict["content"][PROBLEM_CONTENT_TYPE]["schema"]
            schema["allOf"] = [component(registry, "BookingRuleProblem", RULE_PROBLEM)]
        return result


class _MobileBookings(MobileV5Api):
    model = Booking
    module = "bookings"
    presenter_class = MobileBookingPresenter
    openapi_schema = BookingWriteSchema
    errors = {
        "get": (ErrorCode.BOOKING_OFF,),
        "post": (ErrorCode.BOOKING_OFF, ErrorCode.MEMBER_LOCKED, ErrorCode.BOOKING_RULE),
    }

    def check_permissions(self, request):
        super().check_permissions(request)
        member = request.auth.member
        rules.check_booking_on(member)
        if request.method == "POST":
            rules.check_not_locked(member)

    @property
    def member(self):
        return self.request.auth.member

    def get_queryset(self):
        # The member sees bookings of the objects they see: own and shared, active
        # (../shared/DECISIONS.md "Booking rules", rule 1).
        return super().get_queryset().filter(object__active=True)

    @cached_property
    def context(self):
        base = self.flavour.presenter_context(self.request, self.today)
        return BookingContext(organization=base.organization, today=base.today, caller=base.caller, now=clock.now())

    def reply_outcome(self, item: dict, messages, *, status: int = 200, location: str | None = None) -> Response:
        headers = {"Location": self.absolute_url(location)} if location else None
        body = {"data": item, "messages": [message.as_dict() for message in messages]}
        return Response(body, status=status, headers=headers)

    def booking_item(self, presenter, booking_id) -> dict:
        return presenter.one(self.get_queryset().filter(pk=booking_id))


class BookingList(_MobileBookings, ListEndpoint):
    """Bookings of the objects the member sees: primary bookings by start, then queue bookings by start."""

    filters = {
        "object_id": params.Int("object_id"),
        "mine": params.BoolCondition(
            "user_id", build=_mine, description="true: only the member's own bookings, as booker or student."
        ),
        "date_from": params.DateCondition(
            "end_at",
            build=_date_from,
            default=lambda context: context.today,
            description="Local date (the organization's zone): bookings that end after this day has begun; "
            "default today.",
        ),
        "date_to": params.DateCondition(
            "start_at",
            build=_date_to,
            description="Local date (the organization's zone): bookings that start before this day is over.",
        ),
    }
    # The calendar's order (start, then id), queue bookings last (docs/decisions.md §9.34 "GET /bookings and the
    # booking reply").
    ordering = ("-is_primary", "start_at", "id")
    create_body = BookingBody

    @classmethod
    def parameters_for(cls, method: str):
        if method == "post":
            return {}
        return super().parameters_for(method)

    def post(self, request, *args, **kwargs):
        """Book: a private booking of the member by the club's booking rules (a queue booking where the time is
        taken and the object allows a queue). expected_airborne only where the organization and the object use
        it, required where the object forces it (bookings.rules.expected_airborne_check)."""
        self.query()
        body = self.validated_body(BookingBody)
        outcome = rules.book(
            self.member,
            object_id=body["object_id"],
            start_at=body["start_at"],
            end_at=body["end_at"],
            comment=body.get("comment") or "",
            expected_airborne=body.get("expected_airborne"),
            seats_left=body.get("seats_left"),
        )
        item = self.booking_item(self.make_presenter({}), outcome.booking.pk)
        location = self.route("booking", pk=outcome.booking.pk)
        return self.reply_outcome(item, outcome.messages, status=201, location=location)


class BookingItem(_MobileBookings, ItemEndpoint):
    """One booking of an object the member sees (also a queue booking)."""

    http_method_names = ["get", "head"]


class _BookingAction(_MobileBookings, ItemEndpoint):
    http_method_names = ["post"]

    @classmethod
    def parameters_for(cls, method: str):
        return {}

    @classmethod
    def reply_for(cls, method: str):
        return "item", 200


class BookingCut(_BookingAction):
    """Cut the member's booking that is going on: it ends now."""

    errors = {
        "post": (
            *_MobileBookings.errors["post"],
            ErrorCode.BODY_NOT_OBJECT,
            ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            ErrorCode.UNKNOWN_NAME,
        )
    }

    def post(self, request, *args, **kwargs):
        """Cut the member's booking that is going on: it ends now (a whole minute)."""
        self.query()
        if request.body.strip():
            problems: list[FieldProblem] = []
            clean_object({}, self.json_object(), "", problems, partial=False)
            raise_problems(problems, source="body")
        outcome = rules.cut(self.member, self.get_object())
        item = self.booking_item(self.make_presenter({}), outcome.booking.pk)
        return self.reply_outcome(item, outcome.messages)


class BookingCancel(_BookingAction):
    """Cancel the member's booking before its end."""

    create_body = CancelBody

    def post(self, request, *args, **kwargs):
        """Cancel the member's booking before its end; the reply is the booking as it was. `reason` is needed
        where the organization requires one."""
        self.query()
        body = self.validated_body(CancelBody, self.json_object() if request.body.strip() else {})
        booking = self.get_object()
        item = self.booking_item(self.make_presenter({}), booking.pk)
        outcome = rules.cancel(self.member, booking, reason=body.get("reason"))
        return self.reply_outcome(item, outcome.messages)
