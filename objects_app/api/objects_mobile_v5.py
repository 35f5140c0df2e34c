"""Mobile API v5: the objects a member sees (document 2), module `objects`, read.

GET /objects lists them as the booking calendar shows them to the member, in its order
(objects_app.selectors.calendar_objects_for); GET /objects/{id} is one of them (404 10100 for any other: another
organization's object not shared with the member's organization, an inactive one); GET /objects/{id}/thumbnail
is its picture as a 150x100 JPEG (objects_app.thumbnails), with an ETag and a day's private caching.
"""

from django.http import HttpResponse
from django.utils.http import parse_etags

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.openapi import DeclaredAutoSchema
from apicore.views import ItemEndpoint, ListEndpoint
from mobile_api.flavour_v5 import MobileV5Api

from .. import selectors, thumbnails
from ..models import BookableObject
from .mobile_presenters import MobileObjectPresenter

JPEG = "image/jpeg"
THUMBNAIL_CACHE_CONTROL = "private, max-age=86400"


class _Objects(MobileV5Api):
    model = BookableObject
    module = "objects"
    presenter_class = MobileObjectPresenter

    def base_queryset(self):
        # The member sees active objects only (own and shared: the scoping adds that).
        return BookableObject.objects.filter(active=True)


class ObjectList(_Objects, ListEndpoint):
    """The objects of the member's booking calendar, in its order: own first, then shared; each by category,
    registration, id."""

    # The rows depend on the member's organization and the query alone: the page's statement is compiled once per
    # organization and query.
    statement_cache = True

    def base_queryset(self):
        return selectors.calendar_objects_for(self.request.auth.member)

    def get_ordering(self, params):
        return selectors.calendar_order(self.request.auth.member.organization_id)


class ObjectItem(_Objects, ItemEndpoint):
    """One object the member sees (own or shared, active)."""


# --- the thumbnail ---------------------------------------------------------------------------------------------


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether an If-None-Match header matches the strong ETag `etag` (quoted): `*`, or one of its list by the
    weak comparison RFC 9110 prescribes for If-None-Match (W/"x" matches "x")."""
    if not header:
        return False
    return any(tag == "*" or tag.removeprefix("W/") == etag for tag in parse_etags(header))


class ThumbnailSchema(DeclaredAutoSchema):
    """GET /objects/{id}/thumbnail in the document: its 200 is a JPEG (not JSON) with ETag and Cache-Control,
    and a 304 without a body answers a matching If-None-Match."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        operation["parameters"] = [
            *operation.get("parameters", []),
            {
                "name": "If-None-Match",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
                "description": "ETags of copies the app holds (or `*`): 304 without a body when one matches.",
            },
        ]
        responses = operation["responses"]
        responses["304"] = {
            "description": "Not modified: the app's copy (If-None-Match) is the current picture; no body.",
            "headers": {**self.caching_headers(), **self.document.header_refs(registry, self.document.success_headers)},
        }
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def success_response(self, operation, excludable: bool) -> dict:
        return {
            "description": "The object's picture: a JPEG of 150 by 100 pixels.",
            "headers": {
                **self.document.header_refs(self.registry, self.document.success_headers),
                **self.caching_headers(),
            },
            "content": {JPEG: {"schema": {"type": "string", "contentMediaType": JPEG}}},
        }

    @staticmethod
    def caching_headers() -> dict:
        return {
            "ETag": {
                "description": "A strong ETag of the picture's bytes (their SHA-256, quoted).",
                "required": True,
                "schema": {"type": "string", "pattern": '^"[0-9a-f]{64}"$'},
            },
            "Cache-Control": {
                "description": "The app may keep the picture a day.",
                "required": True,
                "schema": {"type": "string", "const": THUMBNAIL_CACHE_CONTROL},
            },
        }


class ObjectThumbnail(_Objects, ItemEndpoint):
    """The object's picture as a JPEG of 150 by 100 pixels; 404 (10304) when it has none."""

    presenter_class = None  # no include or exclude: the reply is the picture itself
    errors = {"get": (ErrorCode.NO_THUMBNAIL,)}
    openapi_schema = ThumbnailSchema

    @classmethod
    def reply_for(cls, method: str) -> tuple[str, int]:
        # No JSON item: the body is the JPEG (ThumbnailSchema documents it).
        return "empty", 200

    def get(self, request, *args, **kwargs):
        """Fetch the picture."""
        self.query()
        obj = self.get_object()
        picture = thumbnails.small_picture(obj)
        if picture is None:
            raise ApiError(ErrorCode.NO_THUMBNAIL, "The object has no picture.")
        headers = {"ETag": f'"{picture.etag}"', "Cache-Control": THUMBNAIL_CACHE_CONTROL}
        if etag_matches(request.headers.get("If-None-Match"), headers["ETag"]):
            response = HttpResponse(status=304, headers=headers)
            del response["Content-Type"]
            return response
        data = picture.read()
        if data is None:
            # The stored file is gone (a storage moved or cleaned): made again from the picture.
            picture = thumbnails.small_picture(obj, remake=True)
            data = None if picture is None else picture.read()
            if data is None:
                raise ApiError(ErrorCode.NO_THUMBNAIL, "The object has no picture.")
            headers["ETag"] = f'"{picture.etag}"'
        return HttpResponse(data, content_type=JPEG, headers=headers)
