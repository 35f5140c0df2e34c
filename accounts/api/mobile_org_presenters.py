"""Presenters of the Mobile API v5's Organization (GET /organization) and Setting (GET /organization/settings),
and the JSON Schema of Sun times (GET /sun-times), document 2."""

import re
from decimal import Decimal

from accounts.models import AppSetting
from apicore import clock
from apicore.presenters import (
    BOOLEAN,
    DATE,
    DATETIME,
    INTEGER,
    NUMBER,
    STRING,
    Field,
    Presenter,
    array,
    enum,
    nullable,
    obj,
    text_or_none,
)

NULLABLE_TEXT = nullable(STRING)
NULLABLE_NUMBER = nullable(NUMBER)
UTC_OFFSET = {"type": "string", "pattern": r"^[+-][0-9]{2}:[0-9]{2}$", "examples": ["+01:00"]}
BOOL_TEXTS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}
INT_TEXT = re.compile(r"^[+-]?[0-9]{1,18}$")


def utc_offset_now(zone_name: str) -> str:
    """The zone's offset from UTC right now, as "+01:00" (seconds of historic offsets are left out)."""
    return clock.offset_text(clock.now().astimezone(clock.zone(zone_name)).utcoffset())


def _number(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _location(icao, latitude, longitude, country, timezone) -> dict:
    return {
        "reference_icao": text_or_none(icao),
        "latitude": _number(latitude),
        "longitude": _number(longitude),
        "country": text_or_none(country),
        "timezone": timezone,
        "utc_offset": utc_offset_now(timezone),
    }


class OrganizationPresenter(Presenter):
    """The member's organization, rendered from the row in memory (the login's): no query."""

    fields = {
        "id": Field(INTEGER, "id"),
        "name": Field(STRING, "name"),
        "homepage": Field(NULLABLE_TEXT, "homepage", compute=text_or_none),
        "location": Field(
            obj(
                reference_icao=NULLABLE_TEXT,
                latitude=NULLABLE_NUMBER,
                longitude=NULLABLE_NUMBER,
                country=NULLABLE_TEXT,
                timezone=STRING,
                utc_offset=UTC_OFFSET,
            ),
            "reference_icao",
            "latitude",
            "longitude",
            "country",
            "timezone",
            compute=_location,
        ),
        "date_format": Field(NULLABLE_TEXT, "date_format", compute=text_or_none),
        "locale": Field(NULLABLE_TEXT, "locale", compute=text_or_none),
        "currency": Field(
            obj(code=STRING, symbol=STRING),
            "currency_code",
            "currency_symbol",
            compute=lambda code, symbol: {"code": code, "symbol": symbol},
        ),
        "booking": Field(
            obj(
                enabled=BOOLEAN,
                cancel_reason_required=BOOLEAN,
                standard_length_hours=NUMBER,
                use_expected_airborne=BOOLEAN,
            ),
            "booking_enabled",
            "booking_cancel_reason_required",
            "booking_standard_length_hours",
            "booking_use_expected_airborne",
            compute=lambda enabled, reason, hours, airborne: {
                "enabled": enabled,
                "cancel_reason_required": reason,
                "standard_length_hours": float(hours),
                "use_expected_airborne": airborne,
            },
        ),
    }


# --- app settings -----------------------------------------------------------------------------------------


class NotAValue(ValueError):
    """A stored setting value that its kind of value does not allow."""


def parse_setting_value(value: str, value_type: str) -> bool | int | str | None:
    """A setting's stored text as its kind: bool true/false (also 1/0, yes/no, on/off, any letter case), int a
    whole number, text the text; empty is None. NotAValue when the text is not of its kind."""
    text = value.strip() if value_type != AppSetting.ValueType.TEXT else value
    if text == "":
        return None
    if value_type == AppSetting.ValueType.BOOLEAN:
        if text.lower() not in BOOL_TEXTS:
            raise NotAValue(value)
        return BOOL_TEXTS[text.lower()]
    if value_type == AppSetting.ValueType.INTEGER:
        if not INT_TEXT.match(text):
            raise NotAValue(value)
        return int(text)
    if value_type == AppSetting.ValueType.TEXT:
        return text
    raise NotAValue(value)


def typed_value(value: str, value_type: str) -> bool | int | str | None:
    """The reply's `value`: null where the stored text is not of its kind (kept from the admin, but rows
    written otherwise may have it) rather than a value of another type than `value_type` says."""
    try:
        return parse_setting_value(value, value_type)
    except NotAValue:
        return None


class SettingPresenter(Presenter):
    """An app setting the organization shows in the app (AppSetting rows)."""

    keys_first = False  # an organization has a handful of settings: one statement
    fields = {
        "id": Field(
            {**INTEGER, "description": "The setting type (1000 hide the balance, 1001 hide the transactions)."},
            "setting_id",
        ),
        "value": Field(
            {
                "type": ["boolean", "integer", "string", "null"],
                "description": "Typed by value_type (bool true/false, int a number, text a text); null when empty "
                "or when the stored value is not of its type.",
            },
            "value",
            "value_type",
            compute=typed_value,
        ),
        "value_type": Field(enum(AppSetting.ValueType.values), "value_type"),
        "name": Field(STRING, "name"),
    }


# --- sun times --------------------------------------------------------------------------------------------

SUN_EVENT = nullable(obj(at=DATETIME, local=DATETIME))
SUN_TIMES_SCHEMA = obj(
    airport=obj(icao=NULLABLE_TEXT, latitude=NULLABLE_NUMBER, longitude=NULLABLE_NUMBER),
    timezone=STRING,
    days=array(
        obj(date=DATE, utc_offset=UTC_OFFSET, dawn=SUN_EVENT, sunrise=SUN_EVENT, sunset=SUN_EVENT, dusk=SUN_EVENT)
    ),
)
