"""A flavour is what one API brings to the shared endpoint classes: who may call (authentication, rights,
rate limits and their headers), the status of each error code and the error body, and the reply envelopes;
and the same things in its API's OpenAPI document (`document_class`, apicore.openapi_document).

The endpoint classes in apicore.views do everything else (parameters, presenters, bodies, paging, the
write transaction) the same way for every API. Main API v5 is one flavour; the Mobile API v5, the legacy
Main API v4 and Mobile API v3 each declare their own without touching the shared part.
"""

from functools import cached_property
from typing import Any

from rest_framework.response import Response

from apicore.errors import ErrorCode, ServiceError
from apicore.exceptions import PROBLEM_CONTENT_TYPE, ApiError, as_api_error, problem_body, unhandled_error
from apicore.openapi_document import FlavourDocument
from apicore.presenters import PresenterContext


class Flavour:
    """The defaults are the conventions of the v5 APIs: Problem Details, `{data}`, `{data, meta, links}`."""

    name = ""
    authentication_classes: tuple = ()
    # Error codes whose status differs from the kind's in this flavour (v4: 10030 is 500, 10100 is 400).
    status_of_code: dict[int, int] = {}
    error_content_type = PROBLEM_CONTENT_TYPE
    # Codes every authenticated call of this flavour can answer (401, 403, 429 ...), for the documentation.
    call_errors: tuple[ErrorCode, ...] = ()
    # Its part of the OpenAPI document: envelopes and errors as JSON Schema, security schemes, the operations
    # of views that do not describe themselves (a FlavourDocument subclass next to the flavour).
    document_class: type[FlavourDocument] = FlavourDocument

    @cached_property
    def document(self) -> FlavourDocument:
        return self.document_class(self)

    # --- callers and rights ---------------------------------------------------------------------------

    def not_authenticated(self) -> ApiError:
        return ApiError(ErrorCode.UNAUTHORIZED)

    def organization(self, request) -> Any:
        """The organization whose rows the caller sees (tenancy)."""
        return request.organization

    def allows(self, request, module: str, right: str) -> bool:
        return request.auth.allows(module, right)

    def refuse_right(self, module: str, right: str, *, block: str | None = None) -> ApiError:
        if block:
            return ApiError(ErrorCode.NO_MODULE_ACCESS, f"The block {block} needs the read right of {module}.")
        return ApiError(ErrorCode.NO_MODULE_ACCESS, f"The token lacks the {right} right of the module {module}.")

    def presenter_context(self, request, today) -> PresenterContext:
        return PresenterContext(organization=self.organization(request), today=today, caller=request.auth)

    def reply_headers(self, request) -> dict[str, str]:
        """Headers every reply to an accepted caller carries (rate limits, deprecation)."""
        return {}

    # --- errors ---------------------------------------------------------------------------------------

    def error_status(self, error: ErrorCode) -> int:
        return self.status_of_code.get(error.code, error.status)

    def error_response(self, request, exc: Exception) -> Response:
        """Any exception raised below an endpoint of this flavour, as this flavour's error reply."""
        error = as_api_error(exc)
        if error is None:
            error = unhandled_error(exc)
        headers = error.headers if isinstance(error, ApiError) else {}
        status = self.error_status(error.error)
        response = Response(self.error_body(request, error, status), status=status, headers=headers)
        response.content_type = self.error_content_type
        return response

    def error_body(self, request, error: ServiceError, status: int) -> dict:
        return problem_body(request, error, status=status)

    # --- envelopes ------------------------------------------------------------------------------------

    def item_body(self, view, item: dict) -> dict:
        return {"data": item}

    def list_body(self, view, items: list[dict], meta: dict, next_url: str | None) -> dict:
        return {"data": items, "meta": meta, "links": {"next": next_url}}


def offered_in(flavour_api: type, endpoint: type) -> type:
    """An existing endpoint offered in another flavour, in one line: `UserListV4 = offered_in(MainV4Api, UserList)`
    (the same as `class UserListV4(MainV4Api, UserList): pass`). Its replies, errors and operations in the
    OpenAPI document are the other flavour's; its declarations (presenter, filters, body, rights) are the
    endpoint's."""
    return type(endpoint.__name__, (flavour_api, endpoint), {})
