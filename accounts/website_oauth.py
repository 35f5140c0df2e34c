"""The consent page of the Mobile API sign-in (built in the next commit)."""

from django.views.generic import View


class ConsentView(View):
    pass
