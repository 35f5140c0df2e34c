"""Stored files of members' expiry dates, removed only once the change that drops them is committed."""

from collections.abc import Iterable
from functools import partial

from django.db import transaction

from accounts.models import UserExpiryDate


def expiry_images_delete_after_commit(names: Iterable[str]) -> None:
    """A rollback keeps the files, since the rows that name them come back."""
    storage = UserExpiryDate._meta.get_field("image").storage
    for name in names:
        if name:
            transaction.on_commit(partial(storage.delete, name), robust=True)
