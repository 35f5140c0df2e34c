"""Norwegian as apps and browsers name it: `no` (the macrolanguage) and `nn` (Nynorsk) are read as `nb`.

Django picks the language from Accept-Language by the codes in LANGUAGES and knows no such alias, so an
iPhone set to Norwegian (`no`, `no-NO`) would get English. The service's Norwegian texts are Bokmål
(../shared/DECISIONS.md "Languages"), the nearest for every Norwegian reader (docs/decisions.md §1.28
"Norwegian as nb").
"""

import re

NORWEGIAN = re.compile(r"(?<![\w-])(?:no|nn)(?=[-;,\s]|$)", re.IGNORECASE)


class NorwegianAliasesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        header = request.META.get("HTTP_ACCEPT_LANGUAGE")
        if header and len(header) <= 1000:
            request.META["HTTP_ACCEPT_LANGUAGE"] = NORWEGIAN.sub("nb", header)
        return self.get_response(request)
