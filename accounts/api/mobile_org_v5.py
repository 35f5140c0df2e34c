"""Mobile API v5 endpoints of the member's organization (document 2, module organization): GET /organization,
GET /organization/settings and GET /sun-times."""

import calendar
import datetime as dt

from rest_framework.response import Response

from accounts.api.mobile_org_presenters import SUN_TIMES_SCHEMA, OrganizationPresenter, SettingPresenter
from accounts.models import AppSetting
from accounts.selectors import organization_sun_times
from apicore import clock
from apicore.clock import local_iso, utc_iso
from apicore.errors import ErrorCode, FieldProblem
from apicore.params import Parameter, parse_date
from apicore.problems import raise_problems
from apicore.views import Endpoint, ListEndpoint, SingletonEndpoint
from mobile_api.flavour_v5 import MobileV5Api

INVALID = ErrorCode.INVALID_PARAMETER.code
# Document 2, Limits: "Sun times range: at most 62 days" (both dates counted).
SUN_TIMES_MAX_DAYS = 62


class OrganizationView(MobileV5Api, SingletonEndpoint):
    """The member's organization, with its offset from UTC now and its booking settings."""

    module = "organization"
    presenter_class = OrganizationPresenter

    def get_object(self):
        return self.organization


class SettingList(MobileV5Api, ListEndpoint):
    """The app settings the organization shows in the app, by setting id."""

    module = "organization"
    model = AppSetting
    presenter_class = SettingPresenter
    ordering = ("setting_id", "id")

    def base_queryset(self):
        return AppSetting.objects.filter(show_in_app=True)


class DateParameter(Parameter):
    schema = {"type": "string", "format": "date"}

    def __init__(self, *, description: str = ""):
        self.description = description

    def parse(self, raw: str) -> dt.date:
        return parse_date(raw)


def month_from(day: dt.date) -> dt.date:
    """The last day of the month that starts on `day`: the day before the same day next month, or the last day
    of next month when it has no such day (2026-01-31 gives 2026-02-28)."""
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    if year > dt.MAXYEAR:
        return dt.date.max
    last = calendar.monthrange(year, month)[1]
    if day.day > last:
        return dt.date(year, month, last)
    return dt.date(year, month, day.day) - dt.timedelta(days=1)


def _event(moment: dt.datetime | None, zone) -> dict | None:
    if moment is None:
        return None
    try:
        return {"at": utc_iso(moment), "local": local_iso(moment, zone)}
    except OverflowError:  # the far edge of the calendar (year 1 or 9999) in a zone far from UTC
        return None


class SunTimesView(MobileV5Api, Endpoint):
    """Civil dawn, sunrise, sunset and civil dusk at the organization's coordinates, day by day.

    At most 62 days; by default today and the month from it. `days` is empty without coordinates."""

    module = "organization"
    item_schema = SUN_TIMES_SCHEMA

    @classmethod
    def parameters_for(cls, method: str) -> dict[str, Parameter]:
        return {
            "date_from": DateParameter(description="The first day (default: today in the organization's zone)."),
            "date_to": DateParameter(
                description="The last day, included (default: the day before the same day a month after date_from); "
                f"not before date_from and at most {SUN_TIMES_MAX_DAYS} days from it, both counted (400 10005 "
                "otherwise). date_from defaults to today, so an earlier date_to needs a date_from."
            ),
        }

    def get(self, request, *args, **kwargs):
        """Fetch the sun times."""
        params = self.query()
        first = params.get("date_from", self.today)
        last = params.get("date_to") or month_from(first)
        if last < first:
            raise_problems([FieldProblem("date_to", INVALID, "date_to must not be before date_from.")], source="query")
        if (last - first).days + 1 > SUN_TIMES_MAX_DAYS:
            message = f"date_to must be at most {SUN_TIMES_MAX_DAYS} days from date_from, both counted."
            raise_problems([FieldProblem("date_to", INVALID, message)], source="query")
        organization = self.organization
        zone = clock.zone(organization.timezone)
        latitude, longitude = organization.latitude, organization.longitude
        days = [
            {
                "date": day.date.isoformat(),
                "utc_offset": clock.offset_text(day.utc_offset),
                "dawn": _event(day.events.dawn, zone),
                "sunrise": _event(day.events.sunrise, zone),
                "sunset": _event(day.events.sunset, zone),
                "dusk": _event(day.events.dusk, zone),
            }
            for day in organization_sun_times(organization=organization, date_from=first, date_to=last)
        ]
        item = {
            "airport": {
                "icao": organization.reference_icao or None,
                "latitude": None if latitude is None else float(latitude),
                "longitude": None if longitude is None else float(longitude),
            },
            "timezone": organization.timezone,
            "days": days,
        }
        return Response(self.flavour.item_body(self, item))
