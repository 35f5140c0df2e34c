from celery import shared_task
from oauth2_provider.models import clear_expired


# The name from before the task left accounts: a message already queued under it still runs.
@shared_task(name="accounts.oauth_tokens_clear_expired")
def oauth_tokens_clear_expired() -> None:
    """Expired access tokens and grants are dead rows that every token lookup's index carries; DOT's own
    cleanup deletes them. Run hourly by Celery beat (CELERY_BEAT_SCHEDULE)."""
    clear_expired()
