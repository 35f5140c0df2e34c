"""Sunrise, sunset and civil twilight at a place, by NOAA's solar position equations (Jean Meeus's
"Astronomical Algorithms" as NOAA's Solar Calculator and its spreadsheet use them: accurate to about a minute
between latitudes 72° N and 72° S, and within a few minutes nearer the poles).

For GET /mobile/v5/sun-times (document 2). Kept in the project, without a new dependency: some fifty lines of
arithmetic, tested against published values (tests/test_sun.py).

`sun_events(day, latitude, longitude, zone)` gives the events of the local date `day` in `zone`: dawn (civil,
the sun 6° below the horizon), sunrise and sunset (the upper limb at the horizon with standard refraction:
90.833° from the zenith) and dusk, each a UTC datetime (whole seconds) or None where the sun does not reach
that height that day (polar day or night; near the polar circles in summer, no civil dusk). A day's events are
those around its solar noon (the transit nearest 12:00 local time), so each day has at most one of each, and
near the polar circles a sunset or dusk may fall after local midnight (its `local` time shows the next date).
"""

import datetime as dt
import math
from dataclasses import dataclass
from zoneinfo import ZoneInfo

# Zenith angles (degrees) of the events.
SUNRISE_ZENITH = 90.833  # 34' of refraction and 16' of the sun's radius
CIVIL_ZENITH = 96.0
J2000 = 2451545.0
UNIX_EPOCH_JD = 2440587.5


@dataclass(frozen=True)
class SunEvents:
    dawn: dt.datetime | None
    sunrise: dt.datetime | None
    sunset: dt.datetime | None
    dusk: dt.datetime | None


def _julian_century(moment_jd: float) -> float:
    return (moment_jd - J2000) / 36525.0


def _declination_and_equation_of_time(jc: float) -> tuple[float, float]:
    """The sun's declination (radians) and the equation of time (minutes) at Julian century `jc`."""
    mean_longitude = math.radians((280.46646 + jc * (36000.76983 + jc * 0.0003032)) % 360.0)
    mean_anomaly = math.radians(357.52911 + jc * (35999.05029 - 0.0001537 * jc))
    eccentricity = 0.016708634 - jc * (0.000042037 + 0.0000001267 * jc)
    centre = (
        math.sin(mean_anomaly) * (1.914602 - jc * (0.004817 + 0.000014 * jc))
        + math.sin(2 * mean_anomaly) * (0.019993 - 0.000101 * jc)
        + math.sin(3 * mean_anomaly) * 0.000289
    )
    true_longitude = math.degrees(mean_longitude) + centre
    omega = math.radians(125.04 - 1934.136 * jc)
    apparent_longitude = math.radians(true_longitude - 0.00569 - 0.00478 * math.sin(omega))
    mean_obliquity = 23.0 + (26.0 + (21.448 - jc * (46.815 + jc * (0.00059 - jc * 0.001813))) / 60.0) / 60.0
    obliquity = math.radians(mean_obliquity + 0.00256 * math.cos(omega))
    declination = math.asin(math.sin(obliquity) * math.sin(apparent_longitude))
    y = math.tan(obliquity / 2.0) ** 2
    equation = (
        y * math.sin(2 * mean_longitude)
        - 2 * eccentricity * math.sin(mean_anomaly)
        + 4 * eccentricity * y * math.sin(mean_anomaly) * math.cos(2 * mean_longitude)
        - 0.5 * y * y * math.sin(4 * mean_longitude)
        - 1.25 * eccentricity * eccentricity * math.sin(2 * mean_anomaly)
    )
    return declination, 4.0 * math.degrees(equation)


def _hour_angle(latitude: float, declination: float, zenith: float) -> float | None:
    """Degrees from the meridian where the sun is at `zenith`; None when it never is that day."""
    phi = math.radians(latitude)
    cos_h = math.cos(math.radians(zenith)) / (math.cos(phi) * math.cos(declination)) - math.tan(phi) * math.tan(
        declination
    )
    if cos_h < -1.0 or cos_h > 1.0:
        return None
    return math.degrees(math.acos(cos_h))


def _event(
    noon_local: dt.datetime, latitude: float, longitude: float, zenith: float, rising: bool
) -> dt.datetime | None:
    """The sun rising (setting) through `zenith` around the solar noon nearest `noon_local` (a UTC datetime);
    the sun's position is taken at the noon first, then twice at the event's own time, as NOAA's calculator does."""
    day_start = noon_local.replace(hour=0, minute=0, second=0, microsecond=0)
    day_jd = UNIX_EPOCH_JD + day_start.timestamp() / 86400.0
    target = (noon_local - day_start).total_seconds() / 60.0  # minutes after 00:00 UTC of that UTC day
    minutes = target
    for _ in range(3):
        declination, equation = _declination_and_equation_of_time(_julian_century(day_jd + minutes / 1440.0))
        hour_angle = _hour_angle(latitude, declination, zenith)
        if hour_angle is None:
            return None
        transit = 720.0 - 4.0 * longitude - equation
        transit += 1440.0 * round((target - transit) / 1440.0)  # the transit within 12 hours of local noon
        minutes = transit - 4.0 * hour_angle if rising else transit + 4.0 * hour_angle
    try:
        return day_start + dt.timedelta(seconds=round(minutes * 60.0))
    except OverflowError:  # an event before year 1 or after year 9999
        return None


def sun_events(day: dt.date, latitude: float, longitude: float, zone: ZoneInfo) -> SunEvents:
    """Dawn, sunrise, sunset and dusk on the local date `day` in `zone` (UTC datetimes or None)."""
    latitude = max(-89.99, min(89.99, latitude))  # the formulas divide by cos(latitude)
    try:
        noon = dt.datetime.combine(day, dt.time(12), tzinfo=zone).astimezone(dt.UTC)
    except OverflowError:  # noon of 0001-01-01 east of Greenwich is before year 1 in UTC
        return SunEvents(None, None, None, None)
    return SunEvents(
        dawn=_event(noon, latitude, longitude, CIVIL_ZENITH, True),
        sunrise=_event(noon, latitude, longitude, SUNRISE_ZENITH, True),
        sunset=_event(noon, latitude, longitude, SUNRISE_ZENITH, False),
        dusk=_event(noon, latitude, longitude, CIVIL_ZENITH, False),
    )
