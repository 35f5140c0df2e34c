"""Mobile API v5 logins (issue 10): who may sign in to an app, consent, and ending logins.

A login is a django-oauth-toolkit refresh-token family (mobile_api.models.MobileLogin). Ending it revokes every
refresh token of the family and deletes its access tokens in the same transaction, so the next call with any
of them is refused (401) and a refresh gives `invalid_grant`. The OAuth endpoints (mobile_api.oauth),
the member website, the admin and the signals on password changes all end logins through here.
"""

import uuid
from datetime import timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.dispatch import receiver
from oauth2_provider.models import get_refresh_token_model
from oauth2_provider.settings import oauth2_settings

from accounts.models import Member
from accounts.signals import password_changed
from apicore import clock
from mobile_api import caller_cache
from mobile_api.models import AppClient, AppConsent, MobileLogin


def member_may_use_app(*, member: Member, app_client: AppClient) -> bool:
    """The member can log in (active member, active and unlocked login) and the app is allowed for the
    member's organization and not revoked (document 2, POST /oauth/token: otherwise `invalid_grant`)."""
    user = member.user
    if app_client.revoked or not member.active or not user.is_active or user.locked_login:
        return False
    allowed = app_client.organizations.values_list("id", flat=True)
    return not allowed or member.organization_id in set(allowed)


def members_for_app(*, user, app_client: AppClient) -> list[Member]:
    """The login's memberships the app may act for, by organization name."""
    members = Member.objects.filter(user=user, active=True).select_related("organization", "user")
    allowed = list(app_client.organizations.values_list("id", flat=True))
    if allowed:
        members = members.filter(organization_id__in=allowed)
    return [
        m
        for m in members.order_by("organization__name", "organization_id")
        if member_may_use_app(member=m, app_client=app_client)
    ]


def app_consent_given(*, app_client: AppClient, member: Member) -> bool:
    """The member allowed this app before, for at least the rights it has now: an app that has gained a right
    since is asked about again."""
    consent = AppConsent.objects.filter(app_client=app_client, member=member).first()
    if consent is None:
        return False
    return all(set(right) <= set(consent.rights.get(module, "")) for module, right in app_client.rights.items())


def app_consent_record(*, app_client: AppClient, member: Member) -> AppConsent:
    consent, _ = AppConsent.objects.update_or_create(
        app_client=app_client, member=member, defaults={"allowed_at": clock.now(), "rights": dict(app_client.rights)}
    )
    return consent


@transaction.atomic
def mobile_login_start(
    *, app_client: AppClient, member: Member, token_family: uuid.UUID, code_digest: str, device_name: str = ""
) -> MobileLogin:
    now = clock.now()
    return MobileLogin.objects.create(
        app_client=app_client,
        member=member,
        token_family=token_family,
        code_digest=code_digest,
        device_name=(device_name or "")[:100],
        created_at=now,
        last_used_at=now,
    )


def mobile_login_renewed(*, token_family: uuid.UUID) -> None:
    MobileLogin.objects.filter(token_family=token_family, ended_at__isnull=True).update(last_used_at=clock.now())


def _end(logins: QuerySet[MobileLogin], reason: str) -> int:
    families = list(logins.filter(ended_at__isnull=True).values_list("token_family", flat=True))
    refresh_tokens = get_refresh_token_model()
    for family in families:
        refresh_tokens.revoke_family(family)
    caller_cache.restamp([caller_cache.login_key(family) for family in families])  # an update sends no signal
    return logins.filter(token_family__in=families).update(ended_at=clock.now(), end_reason=reason)


@transaction.atomic
def mobile_login_end(*, login: MobileLogin, reason: str = MobileLogin.EndReason.MEMBER) -> None:
    """End one login (the member on the website, the app's logout, a replayed code or refresh token)."""
    _end(MobileLogin.objects.filter(pk=login.pk), reason)


@transaction.atomic
def mobile_login_end_family(*, token_family: uuid.UUID, reason: str) -> None:
    """End the login of a refresh-token family, also when no login row was written for it."""
    get_refresh_token_model().revoke_family(token_family)
    caller_cache.restamp([caller_cache.login_key(token_family)])  # an update sends no signal
    MobileLogin.objects.filter(token_family=token_family, ended_at__isnull=True).update(
        ended_at=clock.now(), end_reason=reason
    )


@transaction.atomic
def mobile_logins_end_for_user(*, user, reason: str = MobileLogin.EndReason.PASSWORD) -> int:
    """Every app login of every membership of this login (a password change or reset)."""
    return _end(MobileLogin.objects.filter(member__user=user), reason)


@transaction.atomic
def mobile_logins_end_for_client(*, app_client: AppClient, reason: str = MobileLogin.EndReason.CLIENT) -> int:
    return _end(MobileLogin.objects.filter(app_client=app_client), reason)


def mobile_logins_of_user(*, user) -> QuerySet[MobileLogin]:
    """The login's app logins that still work, newest first, for the member website."""
    # A login not renewed for the refresh token's life has lapsed (DOT's REFRESH_TOKEN_EXPIRE_SECONDS counts
    # from its access token's end, and the access token lives ACCESS_TOKEN_EXPIRE_SECONDS).
    lapsed_before = clock.now() - timedelta(
        seconds=oauth2_settings.REFRESH_TOKEN_EXPIRE_SECONDS + oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS
    )
    return (
        MobileLogin.objects.filter(member__user=user, ended_at__isnull=True, last_used_at__gt=lapsed_before)
        .filter(Q(app_client__revoked_at__isnull=True))
        .select_related("app_client", "member__organization")
        .order_by("-last_used_at", "-id")
    )


@receiver(password_changed)
def mobile_logins_end_on_password_change(sender, *, user, **kwargs) -> None:
    mobile_logins_end_for_user(user=user, reason=MobileLogin.EndReason.PASSWORD)
