from django.apps import AppConfig


class MemberSiteConfig(AppConfig):
    """The member website: login and logout, password reset and change, the member's account and app logins."""

    name = "member_site"
