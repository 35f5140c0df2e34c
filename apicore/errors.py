"""Every error code of the public APIs, in one place, with its status, kind and title.

The kind names the problem `type` URI (`https://<host>/errors/<kind>`), see ../shared/DECISIONS.md "Addresses"
(and docs/decisions.md §1.22 "413 and 414 are of the kind validation").
"""

from dataclasses import dataclass
from enum import Enum, StrEnum

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _  # marks the titles for makemessages; no translation here


class Kind(StrEnum):
    VALIDATION = "validation"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not-found"
    METHOD_NOT_ALLOWED = "method-not-allowed"
    CONFLICT = "conflict"
    GONE = "gone"
    TOO_MANY_REQUESTS = "too-many-requests"
    INTERNAL = "internal"


KIND_STATUS = {
    Kind.VALIDATION: 400,
    Kind.UNAUTHORIZED: 401,
    Kind.FORBIDDEN: 403,
    Kind.NOT_FOUND: 404,
    Kind.METHOD_NOT_ALLOWED: 405,
    Kind.CONFLICT: 409,
    Kind.GONE: 410,
    Kind.TOO_MANY_REQUESTS: 429,
    Kind.INTERNAL: 500,
}

KIND_DESCRIPTIONS = {
    Kind.VALIDATION: "A parameter or the body of the request is wrong. `errors` names each wrong one.",
    Kind.UNAUTHORIZED: "The token or access token is missing, not accepted or expired.",
    Kind.FORBIDDEN: "The token lacks the right for the endpoint, or plain HTTP was used.",
    Kind.NOT_FOUND: "The address or the item does not exist.",
    Kind.METHOD_NOT_ALLOWED: "The address exists, but not with this method. `Allow` lists the methods.",
    Kind.CONFLICT: "The request is well formed but cannot be carried out in the present state.",
    Kind.GONE: "This version of the API is no longer available.",
    Kind.TOO_MANY_REQUESTS: "Too many calls; wait the seconds that `Retry-After` gives.",
    Kind.INTERNAL: "A fault on the service side. Nothing was saved; quote `request_id`.",
}


class ErrorCode(Enum):
    """(code, kind, title[, status]). The status comes from the kind, except where a code names its own: a
    request too large to read is a problem of its body or address (kind `validation`, the same codes), but
    HTTP has statuses of their own for it (413, 414, 415), which clients and proxies understand."""

    HTTPS_REQUIRED = (10000, Kind.FORBIDDEN, _("HTTPS is required"))
    UNAUTHORIZED = (10001, Kind.UNAUTHORIZED, _("Unauthorized"))
    NO_MODULE_ACCESS = (10002, Kind.FORBIDDEN, _("No access to the module"))
    ADDRESS_BLOCKED = (10003, Kind.FORBIDDEN, _("The address is blocked"))
    BODY_NOT_OBJECT = (10004, Kind.VALIDATION, _("The request body must be a JSON object"))
    BODY_TOO_LARGE = (10004, Kind.VALIDATION, _("The request body is too large"), 413)
    UNSUPPORTED_MEDIA_TYPE = (10004, Kind.VALIDATION, _("The request body must be application/json"), 415)
    INVALID_PARAMETER = (10005, Kind.VALIDATION, _("Invalid parameter"))
    ADDRESS_TOO_LONG = (10005, Kind.VALIDATION, _("The address is too long"), 414)
    INVALID_FIELD = (10006, Kind.VALIDATION, _("Invalid field"))
    UNKNOWN_NAME = (10007, Kind.VALIDATION, _("Unknown parameter or field"))
    DATABASE_ERROR = (10010, Kind.INTERNAL, _("Internal error"))
    TOO_MANY_FAILED_LOGINS = (10012, Kind.TOO_MANY_REQUESTS, _("Too many failed login attempts"))
    TOO_MANY_REQUESTS = (10013, Kind.TOO_MANY_REQUESTS, _("Too many requests"))
    TOO_MANY_FAILED_AUTHORIZATIONS = (10014, Kind.TOO_MANY_REQUESTS, _("Too many failed authorization attempts"))
    TOKEN_MUST_BE_EXCHANGED = (10015, Kind.UNAUTHORIZED, _("The token must be exchanged for an access token"))
    INTERNAL_ERROR = (10020, Kind.INTERNAL, _("Internal error"))
    DUPLICATE = (10030, Kind.CONFLICT, _("Duplicate detected"))
    USER_LIMIT_REACHED = (10040, Kind.CONFLICT, _("User limit reached"))
    METHOD_NOT_ALLOWED = (10050, Kind.METHOD_NOT_ALLOWED, _("Method not allowed"))
    VERSION_GONE = (10060, Kind.GONE, _("This API version is no longer available"))
    NOT_FOUND = (10100, Kind.NOT_FOUND, _("Not found"))
    NOT_MODIFIED = (10105, Kind.CONFLICT, _("Not modified"))
    NOTHING_TO_CHANGE = (10105, Kind.VALIDATION, _("Not modified"))
    HAS_DEPENDENTS = (10106, Kind.CONFLICT, _("Other data depends on this"))
    INVALID_DATE = (10110, Kind.VALIDATION, _("Invalid date"))
    INVALID_AMOUNT = (10121, Kind.VALIDATION, _("Invalid amount"))
    DUPLICATE_TRANSACTION = (10130, Kind.CONFLICT, _("Duplicate transaction"))
    BEFORE_LOCK_DATE = (10150, Kind.CONFLICT, _("Before the transaction lock date"))
    DATE_IN_FUTURE = (10151, Kind.VALIDATION, _("Date in the future"))
    DEBIT_ACCOUNT_NOT_FOUND = (10162, Kind.VALIDATION, _("Debit account not found"))
    CREDIT_ACCOUNT_NOT_FOUND = (10163, Kind.VALIDATION, _("Credit account not found"))
    COST_CENTER_NOT_FOUND = (10164, Kind.VALIDATION, _("Cost center not found"))
    PROJECT_NOT_FOUND = (10165, Kind.VALIDATION, _("Project not found"))
    TRANSACTION_NOT_SAVED = (10190, Kind.INTERNAL, _("Unable to save the transaction"))
    FLIGHT_LOG_OFF = (10200, Kind.CONFLICT, _("The organization does not use the flight log"))
    BOOKING_RULE = (10300, Kind.CONFLICT, _("A booking rule stopped the action"))
    BOOKING_OFF = (10301, Kind.FORBIDDEN, _("Booking is switched off"))
    MEMBER_LOCKED = (10302, Kind.FORBIDDEN, _("The member is locked"))
    NO_THUMBNAIL = (10304, Kind.NOT_FOUND, _("The object has no thumbnail"))
    MEMBER_TOKEN_NEEDED = (10305, Kind.FORBIDDEN, _("A member's access token is needed"))

    @property
    def code(self) -> int:
        return self.value[0]

    @property
    def kind(self) -> Kind:
        return self.value[1]

    @property
    def title(self) -> str:
        """The title in English, as every reply but a localized one gives it (see ServiceError.localized)."""
        return self.value[2]

    def title_in_language(self) -> str:
        """The title in the active language (the request's, from Accept-Language)."""
        return gettext(self.value[2])

    @property
    def status(self) -> int:
        return self.value[3] if len(self.value) > 3 else KIND_STATUS[self.kind]


def codes_of_kind(kind: Kind) -> list["ErrorCode"]:
    return [error for error in ErrorCode if error.kind is kind]


@dataclass(frozen=True)
class FieldProblem:
    """One named parameter or field in `errors`."""

    field: str
    code: int
    message: str

    def as_dict(self) -> dict:
        return {"field": self.field, "code": self.code, "message": self.message}


class ServiceError(Exception):
    """A refusal with an error code, raised by services and the conventions layer alike. It carries no HTTP:
    each API's flavour decides the status and the body (apicore.flavours).

    `localized`: its texts (detail, messages) are the member's, made with gettext in the request's language
    (a booking rule's refusal, booking off, member locked); the reply then gives its title in that language
    too. Any other refusal is English throughout, whatever Accept-Language says: one language per reply
    (docs/decisions.md §1.33 "One language per reply")."""

    def __init__(
        self,
        error: ErrorCode,
        detail: str | None = None,
        *,
        errors: list[FieldProblem] | None = None,
        dependents: list[dict] | None = None,
        code: int | None = None,
        localized: bool = False,
    ):
        super().__init__(detail or error.title)
        self.error = error
        self.detail = detail
        self.errors = errors or []
        self.dependents = dependents
        # A few problems carry the code of their single field problem (../shared/DECISIONS.md "Readings of the
        # contract": error codes).
        self.code = code or error.code
        self.localized = localized

    @property
    def title(self) -> str:
        return self.error.title_in_language() if self.localized else self.error.title
