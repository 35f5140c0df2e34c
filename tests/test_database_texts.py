"""Points in time written as text by the database (apicore.database), the same on PostgreSQL and SQLite as
the Python forms (apicore.presenters.utc_iso, local_iso) write them."""

import datetime as dt
import zoneinfo

import pytest

from accounts.models import Organization
from apicore.clock import local_iso, utc_iso
from apicore.database import MinutesBetween, SortableUtcText, UtcText, utc_sortable_text
from apicore.presenters import local_from_utc_text
from tests.factories_operations import BookingFactory, FlightFactory

ZONES = [
    "Europe/Stockholm",
    "UTC",
    "America/New_York",
    "America/St_Johns",  # -03:30 / -02:30
    "Asia/Kolkata",  # +05:30
    "Pacific/Chatham",  # +13:45 / +12:45
    "Pacific/Kiritimati",  # +14:00
    "Pacific/Pago_Pago",  # -11:00
]
INSTANTS = [
    dt.datetime(2026, 1, 15, 23, 30, 5, tzinfo=dt.UTC),
    dt.datetime(2026, 3, 29, 0, 59, 59, tzinfo=dt.UTC),  # the last second before summer time in Stockholm
    dt.datetime(2026, 3, 29, 1, 0, 0, tzinfo=dt.UTC),
    dt.datetime(2026, 7, 1, 12, 0, 0, 999999, tzinfo=dt.UTC),
    dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.UTC),  # the repeated hour in Stockholm
]


@pytest.mark.parametrize("zone", ZONES)
def test_utc_and_local_texts_are_the_python_forms(db, zone):
    org = Organization.objects.create(name=f"Zone {zone}", timezone=zone)
    bookings = [
        BookingFactory(organization=org, start_at=instant, end_at=instant + dt.timedelta(minutes=95, seconds=31))
        for instant in INSTANTS
    ]
    rows = (
        type(bookings[0])
        .objects.filter(pk__in=[booking.pk for booking in bookings])
        .annotate(
            start_text=UtcText("start_at"),
            minutes=MinutesBetween("start_at", "end_at"),
        )
        .order_by("start_at")
        .values_list("start_at", "start_text", "object__organization__timezone", "minutes")
    )

    for start_at, start_text, zone_name, minutes in rows:
        assert start_text == utc_iso(start_at)
        assert local_from_utc_text(start_text, zone_name) == local_iso(start_at, zoneinfo.ZoneInfo(zone))
        assert minutes == 96  # 95 min 31 s, rounded half away from zero


def test_sortable_texts_are_the_python_form_and_order_as_the_points_in_time(db):
    org = Organization.objects.create(name="Sortable", timezone="UTC")
    # One microsecond after 12:00:00 beside INSTANTS' 12:00:00.999999 (in SQLite's text, no fraction when none).
    instants = [
        *INSTANTS,
        dt.datetime(2026, 7, 1, 12, 0, 0, 1, tzinfo=dt.UTC),
        dt.datetime(1999, 12, 31, tzinfo=dt.UTC),
    ]
    bookings = [BookingFactory(organization=org, start_at=i, end_at=i + dt.timedelta(hours=1)) for i in instants]
    rows = list(
        type(bookings[0])
        .objects.filter(pk__in=[booking.pk for booking in bookings])
        .annotate(sortable=SortableUtcText("start_at"), text=UtcText("start_at"))
        .values_list("start_at", "sortable", "text")
    )

    for start_at, sortable, text in rows:
        assert sortable == utc_sortable_text(start_at)
        assert len(sortable) == len("2026-07-01T12:00:00.000001Z")
        assert sortable[:19] + "Z" == text  # the reply's whole seconds
    by_text = [start_at for start_at, _, _ in sorted(rows, key=lambda row: row[1])]
    assert by_text == sorted(instants)
    stockholm = dt.datetime(2026, 7, 1, 14, 0, 0, 1, tzinfo=zoneinfo.ZoneInfo("Europe/Stockholm"))
    assert utc_sortable_text(stockholm) == "2026-07-01T12:00:00.000001Z"
    assert utc_sortable_text(None) is None


def test_null_points_in_time_stay_null(db):
    flight = FlightFactory(landing_at=None)
    row = (
        type(flight)
        .objects.filter(pk=flight.pk)
        .annotate(
            text=UtcText("landing_at"),
            sortable=SortableUtcText("landing_at"),
            minutes=MinutesBetween("takeoff_at", "landing_at"),
        )
        .values_list("text", "sortable", "minutes")
        .get()
    )
    assert row == (None, None, None)
    assert local_from_utc_text(None, "Europe/Stockholm") is None
