"""Celery tasks of webhook delivery. The state lives in the database (webhooks.services), so a task is only
a nudge: acknowledged late and given back when its worker dies, and harmless when it runs twice (the claim)."""

from celery import shared_task

from webhooks import services


@shared_task(name=services.DELIVERY_TRY_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def delivery_try_task(delivery_id: int) -> None:
    services.delivery_try(delivery_id=delivery_id)


@shared_task(name="webhooks.deliveries_sweep", ignore_result=True)
def deliveries_sweep_task() -> int:
    """Every 15 seconds (Celery beat): hand over what is due that no worker is handling."""
    return services.deliveries_sweep()


@shared_task(name="webhooks.paused_webhooks_ping", ignore_result=True)
def paused_webhooks_ping_task() -> int:
    """Hourly: the daily ping of paused webhooks."""
    return services.paused_webhooks_ping()


@shared_task(name="webhooks.delivery_log_purge", ignore_result=True)
def delivery_log_purge_task() -> int:
    """Daily: the delivery log keeps 30 days."""
    return services.delivery_log_purge()
