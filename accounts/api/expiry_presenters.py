"""Presenters of users' expiry dates (Main API v5). `expired` is the date alone against the context's today
(the organization's, in its timezone)."""

from accounts.api.presenters import full_name
from accounts.expiry import date_expired
from accounts.models.user import name_columns
from apicore.presenters import BOOLEAN, DATE, INTEGER, REF, STRING, Field, Presenter, iso_date, nullable


def _expired(context, expiry_date):
    return date_expired(expiry_date, today=context.today)


class ExpiryDateListPresenter(Presenter):
    """An item of GET /expiry-dates: one existing date (a UserExpiryDate)."""

    fields = {
        "user": Field(
            REF,
            "member__user_id",
            *name_columns("member__user"),
            compute=lambda id_, *name: {"id": id_, "name": full_name(*name)},
        ),
        "type": Field(REF, "type_id", "type__name", compute=lambda id_, name: {"id": id_, "name": name}),
        "expiry_date": Field(DATE, "expiry_date", compute=iso_date),
        "expired": Field(BOOLEAN, "expiry_date", compute=_expired, uses_context=True),
        "image_required": Field(BOOLEAN, "type__image_required"),
        "has_image": Field(BOOLEAN, "image", compute=bool),
    }


class UserExpiryDatePresenter(Presenter):
    """An item of GET /users/{id}/expiry-dates and the PUT reply: one expiry date type with the user's date
    of it (an ExpiryDateType annotated by `selectors.types_with_dates_of`)."""

    fields = {
        "id": Field(INTEGER, "id"),
        "name": Field(STRING, "name"),
        "expiry_date": Field(nullable(DATE), "expiry_date", compute=iso_date),
        "expired": Field(nullable(BOOLEAN), "expiry_date", compute=_expired, uses_context=True),
        "image_required": Field(BOOLEAN, "image_required"),
        "has_image": Field(BOOLEAN, "date_image", compute=bool),
    }
