from rest_framework.negotiation import BaseContentNegotiation

from apicore.jsonbody import is_json_media_type


class JsonOnlyNegotiation(BaseContentNegotiation):
    """The API speaks JSON only; an Accept header never turns a reply into 406. A body is read as JSON only
    when it is sent as application/json (apicore.jsonbody): DRF refuses any other with 415 (10004)."""

    def select_parser(self, request, parsers):
        if not parsers or not is_json_media_type(request.content_type):
            return None
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
