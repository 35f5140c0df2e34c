"""The language of a page or reply picked by the legacy site's `cl` parameter (se, gb, no, dk), which the
member website's pages and the Mobile API's sign-in take beside Accept-Language."""

from django.utils import translation

# The legacy site's country codes in `cl` to our language codes.
CL_LANGUAGES = {"se": "sv", "gb": "en", "no": "nb", "dk": "da"}


def language_from_cl(request) -> str | None:
    return CL_LANGUAGES.get(request.GET.get("cl", "").strip().lower())


def activate_cl_language(request) -> None:
    """`?cl=se|gb|no|dk` activates that language for this request (others are ignored)."""
    language = language_from_cl(request)
    if language is not None:
        translation.activate(language)
        request.LANGUAGE_CODE = language


class ClLanguageMixin:
    def dispatch(self, request, *args, **kwargs):
        activate_cl_language(request)
        return super().dispatch(request, *args, **kwargs)
