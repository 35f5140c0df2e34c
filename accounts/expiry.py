"""When a member's expiry date counts as expired; one rule for the API, the website and bookings."""

import datetime as dt

NEVER_EXPIRES = dt.date(2999, 12, 31)


def date_expired(expiry_date: dt.date | None, *, today: dt.date) -> bool | None:
    """The date alone: expired when it is before the organization's today; None without a date."""
    if expiry_date is None:
        return None
    return expiry_date < today


def expired_with_image_rule(
    expiry_date: dt.date | None, *, today: dt.date, image_required: bool, has_image: bool
) -> bool | None:
    """As the website and bookings count it: a type that needs an image is expired until one is added."""
    expired = date_expired(expiry_date, today=today)
    if expired is None:
        return None
    return expired or (image_required and not has_image)
