from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from oauth2_provider.models import get_access_token_model

from accounts.models import Member, MemberRole, Organization
from apicore import clock, counters
from main_api import token_cache
from main_api.models import ApiToken


@receiver(post_delete, sender=ApiToken)
def delete_oauth_client_with_token(sender, instance: ApiToken, **kwargs):
    """However a token is deleted (admin, bulk, cascade), its OAuth client and access tokens go too."""
    from oauth2_provider.models import get_application_model

    get_application_model().objects.filter(pk=instance.application_id).delete()


# --- Cached token rows (main_api.token_cache): new revision stamps when what they hold changes -------------


def _restamp(keys: list[str], using: str) -> None:
    """Now, so that this process and the others stop using the rows at once (and tests, whose transactions
    never commit, see it); and again after the commit, so that a row read before the commit under the
    first new stamps is not used either."""
    counters.backend().bump(keys)
    transaction.on_commit(lambda: counters.backend().bump(keys), using=using, robust=True)


@receiver([post_save, post_delete], sender=ApiToken)
def restamp_token(sender, instance: ApiToken, using, **kwargs):
    # The OAuth client's stamp is in every row of this token, even one cached under another organization.
    _restamp(
        [token_cache.organization_key(instance.organization_id), token_cache.client_key(instance.application_id)], using
    )


@receiver([post_save, post_delete], sender=Organization)
def restamp_organization(sender, instance: Organization, using, **kwargs):
    _restamp([token_cache.organization_key(instance.pk)], using)


@receiver([post_save, post_delete], sender=get_user_model())
def restamp_user(sender, instance, using, update_fields=None, **kwargs):
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return  # a login changes nothing a token shows
    _restamp([token_cache.user_key(instance.pk)], using)


@receiver([post_save, post_delete], sender=Member)
def restamp_member(sender, instance: Member, using, **kwargs):
    _restamp([token_cache.member_key(instance.pk)], using)


@receiver([post_save, post_delete], sender=MemberRole)
def restamp_member_role(sender, instance: MemberRole, using, **kwargs):
    _restamp([token_cache.member_key(instance.member_id)], using)


@receiver([post_save, post_delete], sender=get_access_token_model())
def restamp_access_token(sender, instance, using, signal, created=False, **kwargs):
    # A new access token is a new credential: nothing cached holds it. A deleted one that had already ended
    # is never used from the cache (its end is checked on every call): the hourly clean-up costs nothing.
    if created or instance.application_id is None:
        return
    if signal is post_delete and instance.expires <= clock.now():
        return
    _restamp([token_cache.client_key(instance.application_id)], using)
