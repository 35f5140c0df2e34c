"""The remark services: write, acknowledge, comment and close, each recorded in the history; closed is final.
And the status computation's own edge cases (objects_app.status)."""

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import pytest

from apicore.errors import ServiceError
from objects_app import services
from objects_app.models import RemarkEvent
from objects_app.status import (
    Limits,
    format_minutes,
    hundredths_as_text,
    item_status,
    minutes_as_hours,
    object_status,
    remaining_time,
)
from tests.conftest import FROZEN_AT
from tests.factories import UserFactory
from tests.factories_operations import ObjectFactory, RemarkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def aircraft(org):
    return ObjectFactory(organization=org)


@pytest.fixture
def anna():
    return UserFactory(first_name="Anna")


def history(remark) -> list[tuple]:
    return list(RemarkEvent.objects.filter(remark=remark).order_by("at", "id").values_list("action", "text", "by_id"))


# --- create ----------------------------------------------------------------------------------------------------


def test_a_remark_is_written_open_now_by_its_writer(aircraft, anna, frozen_time):
    remark = services.remark_create(object=aircraft, description="  Left brake squeaks ", category=2, by=anna)

    remark.refresh_from_db()
    assert (remark.object_id, remark.description, remark.category, remark.state) == (
        aircraft.pk,
        "Left brake squeaks",
        2,
        "open",
    )
    assert remark.created_at == FROZEN_AT
    assert remark.created_by == anna
    assert history(remark) == []


@pytest.mark.parametrize(
    ("description", "category", "field"),
    [("", 1, "description"), ("   ", 1, "description"), ("x" * 4001, 1, "description"), ("Ok", 3, "category")],
)
def test_a_remark_needs_a_description_and_a_known_category(aircraft, anna, description, category, field):
    with pytest.raises(ServiceError) as refused:
        services.remark_create(object=aircraft, description=description, category=category, by=anna)

    assert [problem.field for problem in refused.value.errors] == [field]
    assert refused.value.code == 10006
    assert not aircraft.remarks.exists()


# --- steps -------------------------------------------------------------------------------------------------------


def test_acknowledge_comment_and_close_are_recorded_in_order(aircraft, anna, frozen_time):
    olle = UserFactory()
    remark = RemarkFactory(object=aircraft)

    services.remark_acknowledge(remark=remark, by=anna)
    frozen_time.shift(60)
    services.remark_comment(remark=remark, text=" Pads ordered ", by=olle)
    frozen_time.shift(60)
    closed = services.remark_close(remark=remark, by=olle)

    assert closed.state == "closed"
    remark.refresh_from_db()
    assert remark.state == "closed"
    assert history(remark) == [
        ("acknowledged", "", anna.pk),
        ("commented", "Pads ordered", olle.pk),
        ("closed", "", olle.pk),
    ]
    times = list(RemarkEvent.objects.filter(remark=remark).order_by("at").values_list("at", flat=True))
    assert times == [FROZEN_AT, FROZEN_AT + dt.timedelta(seconds=60), FROZEN_AT + dt.timedelta(seconds=120)]


def test_an_open_remark_may_be_closed_at_once(aircraft, anna):
    remark = RemarkFactory(object=aircraft)
    services.remark_close(remark=remark, by=anna)
    remark.refresh_from_db()
    assert remark.state == "closed"
    assert history(remark) == [("closed", "", anna.pk)]


def test_a_comment_keeps_the_state(aircraft, anna):
    remark = RemarkFactory(object=aircraft)
    services.remark_comment(remark=remark, text="Seen", by=None)
    remark.refresh_from_db()
    assert remark.state == "open"
    assert history(remark) == [("commented", "Seen", None)]


@pytest.mark.parametrize("text", ["", "  ", None])
def test_a_comment_needs_text(aircraft, anna, text):
    remark = RemarkFactory(object=aircraft)
    with pytest.raises(ServiceError) as refused:
        services.remark_comment(remark=remark, text=text, by=anna)
    assert [problem.field for problem in refused.value.errors] == ["text"]
    assert history(remark) == []


@pytest.mark.parametrize(
    "step",
    [
        lambda remark, by: services.remark_acknowledge(remark=remark, by=by),
        lambda remark, by: services.remark_comment(remark=remark, text="Too late", by=by),
        lambda remark, by: services.remark_close(remark=remark, by=by),
    ],
    ids=["acknowledge", "comment", "close"],
)
def test_closed_is_final(aircraft, anna, step):
    remark = RemarkFactory(object=aircraft, state="closed")

    with pytest.raises(ServiceError, match="closed") as refused:
        step(remark, anna)

    assert refused.value.error.status == 409
    remark.refresh_from_db()
    assert remark.state == "closed"
    assert history(remark) == []


def test_a_remark_is_acknowledged_once(aircraft, anna):
    remark = RemarkFactory(object=aircraft)
    services.remark_acknowledge(remark=remark, by=anna)

    with pytest.raises(ServiceError, match="already acknowledged"):
        services.remark_acknowledge(remark=remark, by=anna)
    assert history(remark) == [("acknowledged", "", anna.pk)]


def test_a_step_reads_the_stored_state_not_the_callers_copy(aircraft, anna):
    remark = RemarkFactory(object=aircraft)
    stale = type(remark).objects.get(pk=remark.pk)
    services.remark_close(remark=remark, by=anna)

    with pytest.raises(ServiceError):
        services.remark_acknowledge(remark=stale, by=anna)


# --- maintenance limits ------------------------------------------------------------------------------------------


def test_a_maintenance_item_needs_a_limit_and_a_grounding_limit_not_below_its_due_hours():
    with pytest.raises(ServiceError):
        services.maintenance_limits_check(due_date=None, due_airborne=None, hard_airborne=None)
    with pytest.raises(ServiceError):
        services.maintenance_limits_check(due_date=None, due_airborne=Decimal(100), hard_airborne=Decimal(99))
    services.maintenance_limits_check(due_date=None, due_airborne=None, hard_airborne=Decimal(99))
    services.maintenance_limits_check(due_date=dt.date(2027, 1, 1), due_airborne=None, hard_airborne=None)


# --- status computation --------------------------------------------------------------------------------------------

TODAY = dt.date(2026, 11, 25)


def limits(**values) -> Limits:
    return Limits.of(
        **{
            "due_date": None,
            "due_airborne": None,
            "hard_airborne": None,
            "warning_days": 0,
            "warning_hours": Decimal(0),
            **values,
        }
    )


@pytest.mark.parametrize(
    ("minutes", "text"), [(0, "0:00"), (59, "0:59"), (60, "1:00"), (-90, "-1:30"), (Decimal("29.5"), "0:30")]
)
def test_formatted_hours(minutes, text):
    assert format_minutes(minutes) == text


def test_an_item_without_limits_is_ok():
    assert item_status(limits(), airborne_minutes=10_000, today=TODAY) == 0


def test_a_fraction_of_a_minute_before_the_limit_is_not_past():
    # 100.01 hours is 6000.6 minutes: at 6000 minutes 0.6 minutes are left.
    assert item_status(limits(due_airborne=Decimal("100.01")), airborne_minutes=6000, today=TODAY) == 0
    assert remaining_time([limits(due_airborne=Decimal("100.01"))], 6000)["soft_airborne"] == 0.01


def test_status_without_items_nor_remarks_and_with_remarks_only():
    assert (
        object_status(has_status=True, airborne_minutes=0, items=[], open_remarks_category=None, today=TODAY)[
            "total_id"
        ]
        == 0
    )
    status = object_status(has_status=True, airborne_minutes=0, items=[], open_remarks_category=2, today=TODAY)
    assert (status["total_id"], status["maintenance_id"], status["remarks_id"]) == (2, 0, 2)


# Whole hundredths of an hour and fifths of a minute (objects_app.status) give what Decimal arithmetic rounding half
# up gives, for every limit around an airborne total, past ones included.
@pytest.mark.parametrize("airborne_minutes", [0, 1, 7, 59, 6000, 6001, 123_457, -7])
def test_the_remaining_time_is_the_decimal_one_rounded_half_up(airborne_minutes):
    cent, minute = Decimal("0.01"), Decimal(1)
    for hundredths in [*range(-250, 250), *range(airborne_minutes * 5 // 3 - 300, airborne_minutes * 5 // 3 + 300)]:
        hours = Decimal(hundredths) / 100
        minutes = hours * 60 - airborne_minutes
        whole = int(minutes.quantize(minute, rounding=ROUND_HALF_UP))
        expected = (
            float((minutes / 60).quantize(cent, rounding=ROUND_HALF_UP)),
            f"{'-' if whole < 0 else ''}{abs(whole) // 60}:{abs(whole) % 60:02d}",
        )
        remaining = remaining_time([limits(hard_airborne=hours)], airborne_minutes)
        assert (remaining["hard_airborne"], remaining["hard_airborne_formatted"]) == expected, hours
        status = item_status(
            limits(due_airborne=hours, warning_hours=Decimal("0.5")), airborne_minutes=airborne_minutes, today=TODAY
        )
        assert status == (2 if minutes <= 0 else 1 if minutes <= 30 else 0), hours


def test_whole_minutes_and_tachometer_hundredths_are_the_decimal_hours_rounded_half_up():
    for minutes in range(-400, 4000):
        expected = float((Decimal(minutes) / 60).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
        assert minutes_as_hours(minutes) == expected, minutes
    for hundredths in range(-400, 4000):
        assert hundredths_as_text(hundredths) == format_minutes(Decimal(hundredths) / 100 * 60), hundredths
