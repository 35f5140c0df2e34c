import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("flyclub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _database_connections_checked(sender=None, **_kwargs) -> None:
    """A task finds a usable connection, as a request does: one that broke or outlived CONN_MAX_AGE is closed
    (CELERY_DB_REUSE_MAX keeps Celery from closing every connection around every task). Not for a task run
    eagerly, inside its caller's transaction."""
    from django.db import close_old_connections

    if not getattr(getattr(sender, "request", None), "is_eager", False):
        close_old_connections()
