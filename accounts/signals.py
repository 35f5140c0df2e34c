from django.db.models.signals import post_delete
from django.dispatch import receiver

from .models import ApiToken


@receiver(post_delete, sender=ApiToken)
def delete_oauth_client_with_token(sender, instance: ApiToken, **kwargs):
    """However a token is deleted (admin, bulk, cascade), its OAuth client and access tokens go too."""
    from oauth2_provider.models import get_application_model

    get_application_model().objects.filter(pk=instance.application_id).delete()
