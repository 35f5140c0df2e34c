"""Every error code of the public APIs, in one place, with its status, kind and title.

The kind names the problem `type` URI (`https://<host>/errors/<kind>`), see ../shared/DECISIONS.md "Addresses"
(and docs/decisions.md §1.22 "413 and 414 are of the kind validation").
"""

from dataclasses import dataclass
from enum import Enum, StrEnum


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

    HTTPS_REQUIRED = (10000, Kind.FORBIDDEN, "HTTPS is required")
    UNAUTHORIZED = (10001, Kind.UNAUTHORIZED, "Unauthorized")
    NO_MODULE_ACCESS = (10002, Kind.FORBIDDEN, "No access to the module")
    ADDRESS_BLOCKED = (10003, Kind.FORBIDDEN, "The address is blocked")
    BODY_NOT_OBJECT = (10004, Kind.VALIDATION, "The request body must be a JSON object")
    BODY_TOO_LARGE = (10004, Kind.VALIDATION, "The request body is too large", 413)
    UNSUPPORTED_MEDIA_TYPE = (10004, Kind.VALIDATION, "The request body must be application/json", 415)
    INVALID_PARAMETER = (10005, Kind.VALIDATION, "Invalid parameter")
    ADDRESS_TOO_LONG = (10005, Kind.VALIDATION, "The address is too long", 414)
    INVALID_FIELD = (10006, Kind.VALIDATION, "Invalid field")
    UNKNOWN_NAME = (10007, Kind.VALIDATION, "Unknown parameter or field")
    DATABASE_ERROR = (10010, Kind.INTERNAL, "Internal error")
    TOO_MANY_FAILED_LOGINS = (10012, Kind.TOO_MANY_REQUESTS, "Too many failed login attempts")
    TOO_MANY_REQUESTS = (10013, Kind.TOO_MANY_REQUESTS, "Too many requests")
    TOO_MANY_FAILED_AUTHORIZATIONS = (10014, Kind.TOO_MANY_REQUESTS, "Too many failed authorization attempts")
    TOKEN_MUST_BE_EXCHANGED = (10015, Kind.UNAUTHORIZED, "The token must be exchanged for an access token")
    INTERNAL_ERROR = (10020, Kind.INTERNAL, "Internal error")
    DUPLICATE = (10030, Kind.CONFLICT, "Duplicate detected")
    USER_LIMIT_REACHED = (10040, Kind.CONFLICT, "User limit reached")
    METHOD_NOT_ALLOWED = (10050, Kind.METHOD_NOT_ALLOWED, "Method not allowed")
    VERSION_GONE = (10060, Kind.GONE, "This API version is no longer available")
    NOT_FOUND = (10100, Kind.NOT_FOUND, "Not found")
    NOT_MODIFIED = (10105, Kind.CONFLICT, "Not modified")
    NOTHING_TO_CHANGE = (10105, Kind.VALIDATION, "Not modified")
    HAS_DEPENDENTS = (10106, Kind.CONFLICT, "Other data depends on this")
    INVALID_DATE = (10110, Kind.VALIDATION, "Invalid date")
    INVALID_AMOUNT = (10121, Kind.VALIDATION, "Invalid amount")
    DUPLICATE_TRANSACTION = (10130, Kind.CONFLICT, "Duplicate transaction")
    BEFORE_LOCK_DATE = (10150, Kind.CONFLICT, "Before the transaction lock date")
    DATE_IN_FUTURE = (10151, Kind.VALIDATION, "Date in the future")
    DEBIT_ACCOUNT_NOT_FOUND = (10162, Kind.VALIDATION, "Debit account not found")
    CREDIT_ACCOUNT_NOT_FOUND = (10163, Kind.VALIDATION, "Credit account not found")
    COST_CENTER_NOT_FOUND = (10164, Kind.VALIDATION, "Cost center not found")
    PROJECT_NOT_FOUND = (10165, Kind.VALIDATION, "Project not found")
    TRANSACTION_NOT_SAVED = (10190, Kind.INTERNAL, "Unable to save the transaction")
    FLIGHT_LOG_OFF = (10200, Kind.CONFLICT, "The organization does not use the flight log")
    BOOKING_RULE = (10300, Kind.CONFLICT, "A booking rule stopped the action")
    BOOKING_OFF = (10301, Kind.FORBIDDEN, "Booking is switched off")
    MEMBER_LOCKED = (10302, Kind.FORBIDDEN, "The member is locked")
    NO_THUMBNAIL = (10304, Kind.NOT_FOUND, "The object has no thumbnail")
    MEMBER_TOKEN_NEEDED = (10305, Kind.FORBIDDEN, "A member's access token is needed")

    @property
    def code(self) -> int:
        return self.value[0]

    @property
    def kind(self) -> Kind:
        return self.value[1]

    @property
    def title(self) -> str:
        return self.value[2]

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
    each API's flavour decides the status and the body (apicore.flavours)."""

    def __init__(
        self,
        error: ErrorCode,
        detail: str | None = None,
        *,
        errors: list[FieldProblem] | None = None,
        dependents: list[dict] | None = None,
        code: int | None = None,
    ):
        super().__init__(detail or error.title)
        self.error = error
        self.detail = detail
        self.errors = errors or []
        self.dependents = dependents
        # A few problems carry the code of their single field problem (../shared/DECISIONS.md "Readings of the
        # contract": error codes).
        self.code = code or error.code
