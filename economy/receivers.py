"""What economy answers of accounts' signals."""

from django.dispatch import receiver

from accounts.signals import member_deleting
from apicore.errors import ErrorCode, ServiceError
from economy.selectors import member_balance


@receiver(member_deleting)
def member_with_balance_refused(sender, *, member, **kwargs) -> None:
    """A member whose balance is not zero cannot be deleted (409 10105)."""
    if member_balance(member) != 0:
        raise ServiceError(ErrorCode.NOT_MODIFIED, "A user whose balance is not zero cannot be deleted.")
