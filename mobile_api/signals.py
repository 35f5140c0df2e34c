"""New revision stamps for the Mobile API's cached callers (mobile_api.caller_cache) when a row they hold
changes. The member's, user's and organization's stamps are renewed by main_api.signals (shared keys)."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from mobile_api import caller_cache
from mobile_api.models import AppClient, MobileLogin


@receiver([post_save, post_delete], sender=get_access_token_model(), dispatch_uid="mobile-caller-access-token")
def restamp_access_token(sender, instance, using, created=False, **kwargs):
    if not created:  # a new access token is a new credential: nothing cached holds it
        caller_cache.restamp([caller_cache.access_token_key(instance.pk)], using)


@receiver([post_save, post_delete], sender=get_refresh_token_model(), dispatch_uid="mobile-caller-refresh-token")
def restamp_refresh_token(sender, instance, using, created=False, **kwargs):
    # Revoking one deletes its access token (restamped above); a revocation that kept it must still count.
    if not created and instance.access_token_id is not None:
        caller_cache.restamp([caller_cache.access_token_key(instance.access_token_id)], using)


@receiver([post_save, post_delete], sender=get_application_model(), dispatch_uid="mobile-caller-application")
def restamp_application(sender, instance, using, created=False, **kwargs):
    if not created:
        caller_cache.restamp([caller_cache.client_key(instance.pk)], using)


@receiver([post_save, post_delete], sender=AppClient, dispatch_uid="mobile-caller-app-client")
def restamp_app_client(sender, instance, using, created=False, **kwargs):
    if not created:
        caller_cache.restamp([caller_cache.client_key(instance.application_id)], using)


@receiver([post_save, post_delete], sender=MobileLogin, dispatch_uid="mobile-caller-login")
def restamp_login(sender, instance, using, created=False, **kwargs):
    if not created:
        caller_cache.restamp([caller_cache.login_key(instance.token_family)], using)
