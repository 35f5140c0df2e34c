"""The demo world's part for the Mobile API v5 (`"mobile"` in the JSON; its data in demo/data/mobile.yaml): a
public and a confidential app client with fixed client ids, the member the app signs in as and another member
with bookings in the coming weeks, the member's money over more than a year, and pictures of a few aircraft."""

import datetime as dt
import io
from decimal import ROUND_CEILING, Decimal

from django.core.files.base import ContentFile
from django.db.models import Sum

from accounts.models import Member, Organization, User
from apicore import clock
from bookings.models import Booking
from demo.common import MEMBER_PASSWORD, demo_secret
from demo.datafiles import load
from economy.models import Transaction
from mobile_api.services.app_clients import app_client_create
from objects_app.models import BookableObject

MOBILE = load("mobile")
MOBILE_RIGHTS = MOBILE["rights"]
MOBILE_REDIRECT_URIS = {label: client["redirect_uri"] for label, client in MOBILE["clients"].items()}
MOBILE_MEMBER = MOBILE["member"]
MOBILE_OTHER_MEMBER = MOBILE["other_member"]
# Registration -> gradient from top to bottom (RGB).
PICTURES = {registration: (tuple(top), tuple(bottom)) for registration, (top, bottom) in MOBILE["pictures"].items()}
PICTURE_DIR = "objects/demo"


def build_mobile(club: Organization, operations: dict, today: dt.date) -> dict:
    """The `"mobile"` key: app clients, the member and the other member, their data, aircraft pictures."""
    clients = {
        label: _app_client(label, organizations=[club] if client["only_vasteras"] else [])
        for label, client in MOBILE["clients"].items()
    }
    members = {
        role: Member.objects.select_related("user").get(organization=club, user__username=f"{club.pk}-{username}")
        for role, username in (("member", MOBILE_MEMBER), ("other_member", MOBILE_OTHER_MEMBER))
    }
    _mobile_member_money(club, members["member"].user, today)
    objects = operations["objects"]
    zone = clock.zone(club.timezone)
    for registration, who, days, comment in MOBILE["coming_bookings"]:
        _coming_booking(objects[registration], members[who].user, today + dt.timedelta(days=days), zone, comment)
    _save_pictures(operations)
    return {
        "base_url": "/mobile/v5",
        "clients": clients,
        **{
            role: {"id": made.user_id, "username": made.user.username, "password": MEMBER_PASSWORD}
            for role, made in members.items()
        },
    }


def _app_client(label: str, *, organizations: list[Organization]) -> dict:
    """An app client with a fixed client id (and key), so that an app set up against the demo keeps working
    after `make run` again. The key is in the JSON for the demo only: the service keeps it hashed."""
    spec = MOBILE["clients"][label]
    confidential = spec["confidential"]
    redirect_uri = spec["redirect_uri"]
    client, _key = app_client_create(
        name=MOBILE["developer"]["name"],
        app_name=spec["app_name"],
        developer_contact=MOBILE["developer"]["contact"],
        rights=MOBILE_RIGHTS,
        organizations=organizations,
        redirect_uris=[redirect_uri],
        confidential=confidential,
    )
    application = client.application
    application.client_id = f"demo-mobile-{label}"
    fields = ["client_id"]
    if confidential:
        application.client_secret = demo_secret(f"mobile-{label}")  # hashed by DOT on save
        fields.append("client_secret")
    application.save(update_fields=fields)
    made = {"client_id": application.client_id}
    if confidential:
        made["secret"] = demo_secret(f"mobile-{label}")
    return made | {"redirect_uri": redirect_uri}


def _mobile_member_money(club: Organization, user: User, today: dt.date) -> None:
    """More than a year of the member's account besides the flights' charges: fees, payments and a deposit
    each quarter that keep the balance about even; one comment has an internal note after `#`, which the
    Mobile API leaves out."""
    charged = -(Transaction.objects.filter(organization=club, user=user).aggregate(total=Sum("amount"))["total"] or 0)
    deposit = max(Decimal(1000), (Decimal(charged) / 4 / 1000).quantize(Decimal(1), ROUND_CEILING) * 1000)
    deposits = MOBILE["deposits"]
    rows = [
        *MOBILE["money"],
        *((days, str(deposit), deposits["comment"]) for days in deposits["days_ago"]),
    ]
    Transaction.objects.bulk_create(
        Transaction(
            organization=club,
            user=user,
            date=today - dt.timedelta(days=days),
            amount=Decimal(amount),
            comment=comment.format(year=(today - dt.timedelta(days=days)).year),
        )
        for days, amount, comment in rows
    )


def _coming_booking(object_id: int, user: User, day: dt.date, zone, comment: str) -> None:
    """A two-hour private booking on `day` at the first free start of 10:00, 12:00 and 14:00 local; with none
    free, a queue booking at 10:00 (the aircraft allows a queue)."""
    free = None
    for hour in (10, 12, 14):
        start = dt.datetime.combine(day, dt.time(hour), tzinfo=zone).astimezone(dt.UTC)
        end = start + dt.timedelta(hours=2)
        overlapping = Booking.objects.filter(object_id=object_id, is_primary=True, start_at__lt=end, end_at__gt=start)
        if not overlapping.exists():
            free = start, end
            break
    if free is None:
        start = dt.datetime.combine(day, dt.time(10), tzinfo=zone).astimezone(dt.UTC)
        end = start + dt.timedelta(hours=2)
    else:
        start, end = free
    Booking.objects.create(
        object_id=object_id,
        user=user,
        start_at=start,
        end_at=end,
        type="PRIV",
        is_primary=free is not None,
        comment=comment,
        created_at=min(start - dt.timedelta(days=1), clock.now()),
        created_by=user,
    )


def aircraft_picture(registration: str, top: tuple, bottom: tuple) -> bytes:
    """A 600x400 JPEG: a gradient from `top` to `bottom` with the registration written across it."""
    from PIL import Image, ImageDraw, ImageFont

    size = (600, 400)
    mask = Image.linear_gradient("L").resize(size)
    image = Image.composite(Image.new("RGB", size, bottom), Image.new("RGB", size, top), mask)
    draw = ImageDraw.Draw(image)
    draw.line([(0, 300), (600, 300)], fill=(255, 255, 255), width=2)  # a horizon
    try:
        font = ImageFont.load_default(size=96)
    except (AttributeError, ImportError, OSError):  # Pillow without FreeType: the small bitmap font
        font = ImageFont.load_default()
    draw.text(
        (300, 180), registration, font=font, anchor="mm", fill=(255, 255, 255), stroke_width=3, stroke_fill=(0, 0, 0)
    )
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def _save_pictures(operations: dict) -> None:
    """The pictures of PICTURES under fixed names, written anew on each run (the same bytes)."""
    ids = operations["objects"] | {operations["shared_object"]["registration"]: operations["shared_object"]["id"]}
    storage = BookableObject._meta.get_field("thumbnail").storage
    for registration, (top, bottom) in PICTURES.items():
        name = f"{PICTURE_DIR}/{registration}.jpg"
        if storage.exists(name):
            storage.delete(name)
        saved = storage.save(name, ContentFile(aircraft_picture(registration, top, bottom)))
        BookableObject.objects.filter(pk=ids[registration]).update(thumbnail=saved)
