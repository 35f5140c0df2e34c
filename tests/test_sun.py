"""accounts.sun: civil dawn, sunrise, sunset and civil dusk by NOAA's equations, against published values.

The expected times (UTC) are NOAA Solar Calculator / timeanddate.com values for these places and dates, which
astral 3.2 (another NOAA implementation) gives within a minute too; NOAA's method is good to about a minute,
so each is held to ±2 minutes."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from accounts.sun import sun_events

STOCKHOLM = (59.3293, 18.0686, ZoneInfo("Europe/Stockholm"))
VASTERAS = (59.589444, 16.633611, ZoneInfo("Europe/Stockholm"))
TROMSO = (69.6492, 18.9553, ZoneInfo("Europe/Oslo"))
LONGYEARBYEN = (78.2232, 15.6267, ZoneInfo("Arctic/Longyearbyen"))
REYKJAVIK = (64.1466, -21.9426, ZoneInfo("Atlantic/Reykjavik"))
TOLERANCE = dt.timedelta(minutes=2)


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def assert_near(found: dt.datetime | None, expected: str) -> None:
    assert found is not None, expected
    assert abs(found - at(expected)) <= TOLERANCE, (found, expected)


@pytest.mark.parametrize(
    ("place", "day", "dawn", "sunrise", "sunset", "dusk"),
    [
        # Stockholm at midsummer: the sun rises about 03:31 and sets about 22:08 local time (CEST); civil dawn
        # is before 02:00 local time, still on the 21st.
        (STOCKHOLM, "2026-06-21", "2026-06-20 23:58", "2026-06-21 01:31", "2026-06-21 20:08", "2026-06-21 21:41"),
        # ... and at midwinter 08:43 to 14:48 local time (CET).
        (STOCKHOLM, "2026-12-21", "2026-12-21 06:47", "2026-12-21 07:43", "2026-12-21 13:48", "2026-12-21 14:44"),
        # The equator at the March equinox: refraction and the equation of time put sunrise at 06:04.
        (
            (0.0, 0.0, ZoneInfo("UTC")),
            "2026-03-20",
            "2026-03-20 05:43",
            "2026-03-20 06:04",
            "2026-03-20 18:10",
            "2026-03-20 18:31",
        ),
        # Sydney in the southern summer: 05:40 to 20:05 AEDT, the sunrise on the previous UTC date.
        (
            (-33.8688, 151.2093, ZoneInfo("Australia/Sydney")),
            "2026-12-21",
            "2026-12-20 18:11",
            "2026-12-20 18:40",
            "2026-12-21 09:05",
            "2026-12-21 09:34",
        ),
        # New York west of Greenwich: 05:30 to 20:30 EDT, the sunset on the next UTC date.
        (
            (40.7128, -74.0060, ZoneInfo("America/New_York")),
            "2026-07-04",
            "2026-07-04 08:57",
            "2026-07-04 09:30",
            "2026-07-05 00:30",
            "2026-07-05 01:03",
        ),
    ],
)
def test_known_values(place, day, dawn, sunrise, sunset, dusk):
    events = sun_events(dt.date.fromisoformat(day), *place)

    assert_near(events.dawn, dawn)
    assert_near(events.sunrise, sunrise)
    assert_near(events.sunset, sunset)
    assert_near(events.dusk, dusk)


def test_whole_seconds_in_utc():
    events = sun_events(dt.date(2026, 6, 21), *STOCKHOLM)

    for moment in (events.dawn, events.sunrise, events.sunset, events.dusk):
        assert moment.tzinfo is dt.UTC
        assert moment.microsecond == 0


@pytest.mark.parametrize("place", [TROMSO, LONGYEARBYEN])
def test_midnight_sun_has_no_event(place):
    events = sun_events(dt.date(2026, 6, 21), *place)

    assert (events.dawn, events.sunrise, events.sunset, events.dusk) == (None, None, None, None)


def test_polar_night_at_longyearbyen_has_not_even_civil_twilight():
    # The sun stays about 12° below the horizon at noon.
    events = sun_events(dt.date(2026, 12, 21), *LONGYEARBYEN)

    assert (events.dawn, events.sunrise, events.sunset, events.dusk) == (None, None, None, None)


def test_polar_night_at_tromso_has_civil_twilight_but_no_sunrise():
    # The sun stays about 3° below the horizon at noon: civil dawn and dusk, no sunrise or sunset.
    events = sun_events(dt.date(2026, 12, 21), *TROMSO)

    assert events.sunrise is None and events.sunset is None
    assert_near(events.dawn, "2026-12-21 08:31")
    assert_near(events.dusk, "2026-12-21 12:53")


def test_midsummer_in_stockholm_has_civil_dawn_and_dusk():
    # At 59° N the sun sinks about 7° below the horizon at midnight: civil twilight still ends and begins.
    events = sun_events(dt.date(2026, 6, 21), *STOCKHOLM)

    assert events.dawn is not None and events.dusk is not None


def test_no_civil_dusk_in_the_white_nights_of_reykjavik():
    # At 64° N in June the sun stays above -6°: it rises and sets, but civil twilight lasts all night.
    events = sun_events(dt.date(2026, 6, 21), *REYKJAVIK)

    assert events.dawn is None and events.dusk is None
    assert events.sunrise is not None and events.sunset is not None


def test_a_days_sunset_may_fall_after_local_midnight():
    """A day's events are those around its own solar noon: in Reykjavik (UTC, 22° W) the midsummer sunset
    comes a few minutes after midnight, so it is shown on the 21st with the 22nd's date in its time."""
    events = sun_events(dt.date(2026, 6, 21), *REYKJAVIK)

    assert_near(events.sunrise, "2026-06-21 02:55")
    assert_near(events.sunset, "2026-06-22 00:04")


@pytest.mark.parametrize(
    ("day", "offset"), [("2026-03-28", 1), ("2026-03-29", 2), ("2026-10-24", 2), ("2026-10-25", 1)]
)
def test_dst_change_days_keep_the_local_times_smooth(day, offset):
    """Around the changes to and from summer time the UTC times move by a minute or two a day while the local
    times jump by the hour; the events stay on their own date."""
    zone = VASTERAS[2]
    date = dt.date.fromisoformat(day)
    events = sun_events(date, *VASTERAS)
    before = sun_events(date - dt.timedelta(days=1), *VASTERAS)

    for moment, previous in ((events.sunrise, before.sunrise), (events.sunset, before.sunset)):
        assert dt.timedelta(minutes=-5) < (moment - previous) - dt.timedelta(days=1) < dt.timedelta(minutes=5)
        local = moment.astimezone(zone)
        assert local.date() == date
        assert local.utcoffset() == dt.timedelta(hours=offset)


def test_spring_forward_morning_in_vasteras():
    events = sun_events(dt.date(2026, 3, 29), *VASTERAS)

    assert_near(events.dawn, "2026-03-29 03:46")
    assert_near(events.sunrise, "2026-03-29 04:28")
    assert events.sunrise.astimezone(VASTERAS[2]).isoformat().endswith("+02:00")


def test_events_in_order_every_day_of_a_year_in_vasteras():
    day = dt.date(2026, 1, 1)
    previous = None
    while day.year == 2026:
        events = sun_events(day, *VASTERAS)
        if events.dawn and events.dusk:
            assert events.dawn < events.sunrise < events.sunset < events.dusk, day
        else:
            # Only the white nights around midsummer lack civil twilight... which 59.6° N never has.
            raise AssertionError(day)
        if previous is not None:
            assert abs((events.sunrise - previous.sunrise) - dt.timedelta(days=1)) < dt.timedelta(minutes=6), day
        previous = events
        day += dt.timedelta(days=1)


def test_the_southern_polar_circle_mirrors_the_northern():
    # Antarctica's McMurdo station (77.8° S) has midnight sun in December and polar night in June.
    mcmurdo = (-77.85, 166.67, ZoneInfo("Antarctica/McMurdo"))

    summer, winter = sun_events(dt.date(2026, 12, 21), *mcmurdo), sun_events(dt.date(2026, 6, 21), *mcmurdo)

    assert (summer.sunrise, summer.sunset, winter.sunrise, winter.sunset) == (None, None, None, None)


@pytest.mark.parametrize("day", [dt.date.min, dt.date.max])
@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"])
def test_the_edges_of_the_calendar_never_fail(day, zone):
    events = sun_events(day, 0.0, 179.9 if zone == "Pacific/Kiritimati" else -170.7, ZoneInfo(zone))

    for moment in (events.dawn, events.sunrise, events.sunset, events.dusk):
        assert moment is None or moment.tzinfo is dt.UTC


@pytest.mark.parametrize("latitude", [90.0, -90.0, 89.999])
def test_the_poles_themselves(latitude):
    events = sun_events(dt.date(2026, 6, 21), latitude, 0.0, ZoneInfo("UTC"))

    assert events.sunrise is None and events.sunset is None


# --- the selector the Mobile API's GET /sun-times reads ------------------------------------------------------------


@pytest.mark.django_db
def test_organization_sun_times_gives_each_local_day_with_its_offset_at_noon():
    from accounts.selectors import organization_sun_times
    from tests.factories import OrganizationFactory

    club = OrganizationFactory(latitude="59.589444", longitude="16.633611", timezone="Europe/Stockholm")

    days = organization_sun_times(organization=club, date_from=dt.date(2026, 3, 28), date_to=dt.date(2026, 3, 30))

    assert [day.date for day in days] == [dt.date(2026, 3, 28), dt.date(2026, 3, 29), dt.date(2026, 3, 30)]
    # Summer time begins on the 29th at 02:00: noon is +02:00 from that day on.
    assert [day.utc_offset for day in days] == [dt.timedelta(hours=1), dt.timedelta(hours=2), dt.timedelta(hours=2)]
    assert days[0].events == sun_events(dt.date(2026, 3, 28), *VASTERAS)

    club.latitude = None
    assert organization_sun_times(organization=club, date_from=dt.date(2026, 3, 28), date_to=dt.date(2026, 3, 30)) == []
