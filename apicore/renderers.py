from rest_framework.renderers import JSONRenderer


class ApiJSONRenderer(JSONRenderer):
    """Compact UTF-8 JSON; the media type of an error reply is set by the exception handler."""

    charset = None
    compact = True
    ensure_ascii = False
