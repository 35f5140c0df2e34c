"""An object's time summary is kept current by the flight log: each logged, changed or deleted flight moves
the totals by its difference, in the same transaction, so that reading them never sums flights."""

from decimal import Decimal

from django.db.models import F

from .models import BookableObject


def object_totals_move(
    *,
    object_id: int,
    airborne_minutes: int = 0,
    block_minutes: int = 0,
    tach_hours: Decimal = Decimal(0),
    landings: int = 0,
) -> None:
    """Add the differences (negative to take a flight away) to the object's totals, atomically in SQL."""
    if not (airborne_minutes or block_minutes or tach_hours or landings):
        return
    BookableObject.objects.filter(pk=object_id).update(
        airborne_minutes=F("airborne_minutes") + airborne_minutes,
        block_minutes=F("block_minutes") + block_minutes,
        tach_hours=F("tach_hours") + tach_hours,
        landings=F("landings") + landings,
    )
