"""GET /mobile/v5/objects, /objects/{id} and /objects/{id}/thumbnail (document 2): every field and block, the
booking calendar's order (objects_app.selectors.calendar_objects_for), the list parameters, what a member may
not see (another organization's object, an inactive one: never listed, 404), the thumbnail (a 150x100 JPEG made
once, ETag, Cache-Control, 304, 10304), rights, hostile parameters, query counts and the OpenAPI document."""

import datetime as dt
import hashlib
import io
from decimal import Decimal
from unittest import mock

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from PIL import Image

from objects_app import thumbnails
from objects_app.models import BookableObject, Category, MaintenanceItem, ObjectShare, Remark, RemarkState
from objects_app.selectors import calendar_objects_for
from tests.factories import MemberFactory, OrganizationFactory, UserFactory
from tests.factories_operations import EquipmentFactory, ObjectFactory, ObjectShareFactory, RemarkFactory
from tests.helpers import assert_problem, problem_fields
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db
UTC = dt.UTC
ALL_BLOCKS = "status,active_remarks,time_summary,disclaimer,settings"
# The routes of this file (their contract classes: tests/test_contract_mobile_objects.py).
ROUTES = ("/objects", "/objects/<id:pk>", "/objects/<id:pk>/thumbnail")
THUMBNAIL_CACHE = "private, max-age=86400"


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__first_name="Åsa", user__last_name="Öberg")


@pytest.fixture
def app_client(org):
    return make_app_client(rights={"objects": "r"})


@pytest.fixture
def api(member, app_client):
    return MobileApi(issue_member_tokens(member, app_client).access_token)


def listed(api, **params) -> list[dict]:
    response = api.get("/objects", data={"limit": 500, **params})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def registrations(api, **params) -> list[str]:
    return [item["registration"] for item in listed(api, **params)]


def fetched(api, obj, **params) -> dict:
    response = api.get(f"/objects/{obj.pk}", data=params)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def jpeg_of(size=(600, 400), colour=(30, 90, 160), mode="RGB", kind="JPEG") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, colour).save(out, kind)
    return out.getvalue()


def with_picture(obj, data: bytes | None = None, name: str = "picture.jpg"):
    obj.thumbnail.save(name, ContentFile(jpeg_of() if data is None else data))
    return obj


def thumbnail(api, obj, **extra):
    return api.get(f"/objects/{obj.pk}/thumbnail", **extra)


# --- fields --------------------------------------------------------------------------------------------------


def test_an_aircraft_has_every_field(api, org):
    aircraft = ObjectFactory(organization=org, registration="SE-KBT", comment="")

    assert fetched(api, aircraft) == {
        "id": aircraft.pk,
        "registration": "SE-KBT",
        "category": {"id": 0, "name": "Aircraft"},
        "model": {"designator": "C172", "name": "Cessna 172 Skyhawk"},
        "comment": None,
        "organization": {"id": org.pk, "name": "Västerås Flygklubb"},
        "has_thumbnail": False,
    }


def test_the_model_is_filled_in_for_aircraft_only_and_empty_parts_are_null(api, org):
    headset = EquipmentFactory(organization=org, comment="Left shelf", type_designator="X", type_name="Y")
    room = ObjectFactory(organization=org, category=Category.PREMISES, registration="Briefing")
    unnamed = ObjectFactory(organization=org, type_designator="PA28", type_name="")

    assert fetched(api, headset)["category"] == {"id": 1, "name": "Equipment"}
    assert fetched(api, headset)["model"] == {"designator": None, "name": None}
    assert fetched(api, headset)["comment"] == "Left shelf"
    assert fetched(api, room)["category"] == {"id": 2, "name": "Premises"}
    assert fetched(api, room)["model"] == {"designator": None, "name": None}
    assert fetched(api, unnamed)["model"] == {"designator": "PA28", "name": None}


def test_category_names_are_english_whatever_the_language(api, org):
    headset = EquipmentFactory(organization=org)

    assert fetched(api, headset)["category"]["name"] == "Equipment"
    response = api.get(f"/objects/{headset.pk}", HTTP_ACCEPT_LANGUAGE="sv")
    assert response.json()["data"]["category"] == {"id": 1, "name": "Equipment"}


def test_a_shared_object_names_its_owner(api, org, other_org):
    shared = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=shared, organization=org)

    assert fetched(api, shared)["organization"] == {"id": other_org.pk, "name": "Bergen Flyklubb"}


def test_has_thumbnail_follows_the_picture(api, org, media):
    plain = ObjectFactory(organization=org)
    pictured = with_picture(ObjectFactory(organization=org))

    assert fetched(api, plain)["has_thumbnail"] is False
    assert fetched(api, pictured)["has_thumbnail"] is True


# --- the calendar's order and who sees what ------------------------------------------------------------------


def test_objects_are_listed_in_the_calendars_order(api, org, other_org, member):
    third = OrganizationFactory(name="Aalborg Flyveklub")
    room = ObjectFactory(organization=org, category=Category.PREMISES, registration="Briefing")
    headset = EquipmentFactory(organization=org, registration="headset")
    lower = ObjectFactory(organization=org, registration="se-abc")
    upper = ObjectFactory(organization=org, registration="SE-ABD")
    shared_room = ObjectFactory(organization=third, category=Category.PREMISES, registration="Hangar")
    shared_plane = ObjectFactory(organization=other_org, registration="LN-XYZ")
    shared_early = ObjectFactory(organization=third, registration="AA-AAA")
    for obj in (shared_room, shared_plane, shared_early):
        ObjectShareFactory(object=obj, organization=org)

    expected = [lower, upper, headset, room, shared_early, shared_plane, shared_room]
    assert [item["id"] for item in listed(api)] == [obj.pk for obj in expected]
    # The one definition of the order, for the member website's calendar too.
    assert list(calendar_objects_for(member)) == expected


def test_equal_registrations_are_ordered_by_id(api, org, other_org):
    first = ObjectFactory(organization=other_org, registration="SE-AAA")
    second = ObjectFactory(organization=OrganizationFactory(), registration="se-aaa")
    for obj in (second, first):
        ObjectShareFactory(object=obj, organization=org)

    assert [item["id"] for item in listed(api)] == [first.pk, second.pk]


def test_inactive_and_unshared_objects_are_neither_listed_nor_fetched(api, org, other_org):
    own = ObjectFactory(organization=org, registration="SE-OWN")
    inactive = ObjectFactory(organization=org, registration="SE-OLD", active=False)
    foreign = ObjectFactory(organization=other_org, registration="LN-NOT")
    inactive_shared = ObjectFactory(organization=other_org, registration="LN-OLD", active=False)
    ObjectShareFactory(object=inactive_shared, organization=org)
    elsewhere = ObjectFactory(organization=other_org, registration="LN-ELS")
    ObjectShareFactory(object=elsewhere, organization=OrganizationFactory())

    assert registrations(api) == ["SE-OWN"]
    assert fetched(api, own)["id"] == own.pk
    for obj in (inactive, foreign, inactive_shared, elsewhere):
        assert_problem(api.get(f"/objects/{obj.pk}"), 404, 10100)
        assert_problem(thumbnail(api, obj), 404, 10100)
    assert_problem(api.get("/objects/999999999"), 404, 10100)


def test_another_organizations_member_sees_only_its_own(org, other_org, app_client):
    ObjectFactory(organization=org, registration="SE-OWN")
    theirs = ObjectFactory(organization=other_org, registration="LN-THR")
    other_api = MobileApi(issue_member_tokens(MemberFactory(organization=other_org), app_client).access_token)

    assert registrations(other_api) == ["LN-THR"]
    assert fetched(other_api, theirs)["registration"] == "LN-THR"


def test_a_share_taken_away_hides_the_object_at_once(api, org, other_org):
    shared = ObjectFactory(organization=other_org)
    share = ObjectShareFactory(object=shared, organization=org)
    assert fetched(api, shared)["id"] == shared.pk

    share.delete()

    assert listed(api) == []
    assert_problem(api.get(f"/objects/{shared.pk}"), 404, 10100)


# --- list parameters -----------------------------------------------------------------------------------------


def make_objects(org, count: int) -> list[BookableObject]:
    return BookableObject.objects.bulk_create(
        BookableObject(organization=org, registration=f"SE-{n:04d}") for n in range(count)
    )


def test_the_default_page_is_100_and_the_largest_500(api, org):
    make_objects(org, 501)

    body = api.get("/objects").json()
    assert (body["meta"]["count"], body["meta"]["limit"], body["meta"]["has_more"]) == (100, 100, True)
    assert body["data"][0]["registration"] == "SE-0000"
    assert "total" not in body["meta"]
    assert len(api.get("/objects", data={"limit": 500}).json()["data"]) == 500
    body = assert_problem(api.get("/objects", data={"limit": 501}), 400, 10005)
    assert problem_fields(body) == {"limit": 10005}
    assert_problem(api.get("/objects", data={"limit": 0}), 400, 10005)


def test_offset_has_more_next_and_total(api, org):
    make_objects(org, 5)

    body = api.get("/objects", data={"limit": 2, "offset": 2, "include_total": "true"}).json()

    assert [item["registration"] for item in body["data"]] == ["SE-0002", "SE-0003"]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 2, "has_more": True, "total": 5}
    assert body["links"]["next"].startswith("https://")
    assert "offset=4" in body["links"]["next"]
    last = api.get("/objects", data={"limit": 2, "offset": 4}).json()
    assert [item["registration"] for item in last["data"]] == ["SE-0004"]
    assert last["meta"]["has_more"] is False and last["links"]["next"] is None
    assert_problem(api.get("/objects", data={"offset": -1}), 400, 10005)


def test_exclude_leaves_fields_out_of_list_and_item(api, org):
    obj = ObjectFactory(organization=org)

    assert set(listed(api, exclude="comment,model")[0]) == {
        "id",
        "registration",
        "category",
        "organization",
        "has_thumbnail",
    }
    assert set(fetched(api, obj, exclude="has_thumbnail")) == {
        "id",
        "registration",
        "category",
        "model",
        "comment",
        "organization",
    }
    assert problem_fields(assert_problem(api.get("/objects", data={"exclude": "colour"}), 400, 10005)) == {
        "exclude": 10005
    }


def test_blocks_not_offered_and_unknown_parameters_are_refused(api, org):
    obj = ObjectFactory(organization=org)

    # maintenance_items is a Main API block, not the Mobile API's.
    for path in ("/objects", f"/objects/{obj.pk}"):
        body = assert_problem(api.get(path, data={"include": "maintenance_items"}), 400, 10005)
        assert problem_fields(body) == {"include": 10005}
        assert_problem(api.get(path, data={"registration": "SE*"}), 400, 10007)
        assert_problem(api.get(path, data={"include": "status", "surprise": "1"}), 400, 10007)
        mixed = assert_problem(api.get(path, data={"include": "colour", "surprise": "1"}), 400, 10005)
        assert problem_fields(mixed) == {"include": 10005, "surprise": 10007}
    # Paging is the list's alone.
    assert problem_fields(assert_problem(api.get(f"/objects/{obj.pk}", data={"limit": 1}), 400, 10007)) == {
        "limit": 10007
    }
    assert_problem(api.get(f"/objects/{obj.pk}/thumbnail", data={"include": "status"}), 400, 10007)


# --- blocks --------------------------------------------------------------------------------------------------


def test_every_block_of_an_aircraft(api, org, frozen_time):
    aircraft = ObjectFactory(
        organization=org,
        airborne_minutes=6125,
        block_minutes=7000,
        tach_hours=Decimal("112.50"),
        landings=431,
        use_expected_airborne=True,
        max_booking_length=240,
        disclaimer_headline="Fuel",
        disclaimer_text="Refuel to tabs after flight.",
    )
    MaintenanceItem.objects.create(
        object=aircraft,
        name="100-hour check",
        due_date=dt.date(2027, 6, 1),
        due_airborne=Decimal("110"),
        hard_airborne=Decimal("112"),
        warning_hours=Decimal("10"),
    )
    writer = UserFactory(first_name="Per", last_name="Ek")
    remark = RemarkFactory(
        object=aircraft,
        category=2,
        description="Flat tyre",
        created_by=writer,
        created_at=dt.datetime(2026, 11, 1, 23, 30, tzinfo=UTC),
    )
    RemarkFactory(object=aircraft, category=2, state=RemarkState.CLOSED)

    item = fetched(api, aircraft, include=ALL_BLOCKS)

    assert list(item)[-5:] == ["status", "active_remarks", "time_summary", "disclaimer", "settings"]
    assert item["status"] == {
        "total_id": 2,
        "maintenance_id": 1,
        "remarks_id": 2,
        "remaining_time": {
            "soft_airborne": 7.92,
            "soft_airborne_formatted": "7:55",
            "hard_airborne": 9.92,
            "hard_airborne_formatted": "9:55",
        },
    }
    assert item["active_remarks"] == [
        {
            "id": remark.pk,
            "created_date": "2026-11-02",  # the organization's local date
            "created_by": {"id": writer.pk, "name": "Per Ek"},
            "description": "Flat tyre",
            "category_id": 2,
        }
    ]
    assert item["time_summary"] == {
        "total": {
            "airborne": 102.08,
            "airborne_formatted": "102:05",
            "block": 116.67,
            "block_formatted": "116:40",
            "tach": 112.5,
            "tach_formatted": "112:30",
            "landings": 431,
        }
    }
    assert item["disclaimer"] == {"headline": "Fuel", "text": "Refuel to tabs after flight."}
    assert item["settings"] == {"use_expected_airborne": True, "force_expected_time": False, "max_booking_length": 240}
    assert listed(api, include=ALL_BLOCKS) == [item]


def test_blocks_of_other_objects_and_empty_ones(api, org):
    headset = EquipmentFactory(organization=org, has_status=False, disclaimer_text="Return to the shelf.")
    plain = ObjectFactory(organization=org)

    item = fetched(api, headset, include=ALL_BLOCKS)
    assert item["settings"] is None
    assert item["disclaimer"] == {"headline": None, "text": "Return to the shelf."}
    assert item["status"]["total_id"] is None
    assert item["active_remarks"] == []
    plain_item = fetched(api, plain, include="disclaimer,settings,status")
    assert plain_item["disclaimer"] is None
    assert plain_item["settings"] == {
        "use_expected_airborne": False,
        "force_expected_time": False,
        "max_booking_length": None,
    }
    assert plain_item["status"] == {
        "total_id": 0,
        "maintenance_id": 0,
        "remarks_id": 0,
        "remaining_time": {
            "soft_airborne": None,
            "soft_airborne_formatted": None,
            "hard_airborne": None,
            "hard_airborne_formatted": None,
        },
    }
    assert "status" not in fetched(api, plain)
    only = fetched(api, plain, include="disclaimer")
    assert set(only) - {"id", "registration", "category", "model", "comment", "organization", "has_thumbnail"} == {
        "disclaimer"
    }


def test_a_shared_objects_blocks_are_its_owners(api, org, other_org):
    shared = ObjectFactory(organization=other_org, disclaimer_headline="Owner's rules")
    ObjectShareFactory(object=shared, organization=org)
    RemarkFactory(object=shared, category=1)

    item = fetched(api, shared, include="status,active_remarks,disclaimer")
    assert item["status"]["remarks_id"] == 1
    assert len(item["active_remarks"]) == 1
    assert item["disclaimer"] == {"headline": "Owner's rules", "text": None}


# --- the thumbnail -------------------------------------------------------------------------------------------


def test_the_thumbnail_is_a_150_by_100_jpeg_with_etag_and_cache_control(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))

    response = thumbnail(api, obj)

    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    assert response["Cache-Control"] == THUMBNAIL_CACHE
    assert response["ETag"] == f'"{hashlib.sha256(response.content).hexdigest()}"'
    assert "RateLimit-Remaining" in response
    image = Image.open(io.BytesIO(response.content))
    assert (image.format, image.size, image.mode) == ("JPEG", (150, 100), "RGB")
    assert not image.info.get("exif")


def test_the_thumbnail_is_made_once_and_stored(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))

    with mock.patch.object(thumbnails, "make_jpeg", wraps=thumbnails.make_jpeg) as made:
        first = thumbnail(api, obj)
        second = thumbnail(api, obj)

    assert made.call_count == 1
    assert first.content == second.content and first["ETag"] == second["ETag"]
    obj.refresh_from_db()
    assert obj.thumbnail_small_source == obj.thumbnail.name
    assert obj.thumbnail_small_etag == first["ETag"].strip('"')
    with default_storage.open(obj.thumbnail_small.name, "rb") as stored:
        assert stored.read() == first.content
    # The uploaded picture is not read again.
    default_storage.delete(obj.thumbnail.name)
    assert thumbnail(api, obj).content == first.content


def test_a_new_picture_makes_a_new_thumbnail(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))
    before = thumbnail(api, obj)

    with_picture(BookableObject.objects.get(pk=obj.pk), jpeg_of(colour=(200, 20, 20)))
    after = thumbnail(api, obj)

    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert Image.open(io.BytesIO(after.content)).getpixel((75, 50))[0] > 150


def test_a_wide_picture_is_cropped_from_the_centre_to_fill(api, org, media):
    picture = Image.new("RGB", (900, 200), (255, 0, 0))
    picture.paste((0, 200, 0), (150, 0, 750, 200))  # green in the middle, red at both ends
    out = io.BytesIO()
    picture.save(out, "PNG")
    obj = with_picture(ObjectFactory(organization=org), out.getvalue(), "wide.png")

    image = Image.open(io.BytesIO(thumbnail(api, obj).content))

    assert image.size == (150, 100)
    for x in (2, 75, 147):  # filled edge to edge by the middle: no red, no bars
        red, green, _blue = image.getpixel((x, 50))
        assert green > 150 and red < 60, (x, image.getpixel((x, 50)))


def test_a_transparent_or_palette_picture_gets_a_white_background(api, org, media):
    obj = with_picture(ObjectFactory(organization=org), jpeg_of((300, 200), (0, 0, 0, 0), "RGBA", "PNG"), "clear.png")

    image = Image.open(io.BytesIO(thumbnail(api, obj).content))
    assert all(channel > 240 for channel in image.getpixel((75, 50)))


def test_an_upright_turned_photo_is_shown_upright(api, org, media):
    photo = Image.new("RGB", (400, 600), (0, 0, 200))  # taken standing: tall, with orientation 6 (turn)
    photo.paste((250, 250, 0), (0, 0, 400, 300))
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    photo.save(out, "JPEG", exif=exif)
    obj = with_picture(ObjectFactory(organization=org), out.getvalue())

    image = Image.open(io.BytesIO(thumbnail(api, obj).content))
    # Turned 90° clockwise: the yellow top half becomes the right half.
    assert image.getpixel((140, 50))[0] > 200 and image.getpixel((10, 50))[2] > 150


def test_if_none_match_gives_304_without_a_body(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))
    etag = thumbnail(api, obj)["ETag"]

    for header in (etag, "*", f'"stale", {etag}', f"W/{etag}"):
        response = thumbnail(api, obj, HTTP_IF_NONE_MATCH=header)
        assert response.status_code == 304, header
        assert response.content == b""
        assert response["ETag"] == etag
        assert response["Cache-Control"] == THUMBNAIL_CACHE
        assert not response.has_header("Content-Type")
    for header in ('"stale"', etag.strip('"'), ""):
        assert thumbnail(api, obj, HTTP_IF_NONE_MATCH=header).status_code == 200, header


def test_no_picture_is_404_10304_and_errors_are_not_cached(api, org, media):
    obj = ObjectFactory(organization=org)

    response = thumbnail(api, obj)
    assert_problem(response, 404, 10304)
    assert response["Cache-Control"] == "private, no-store"
    assert_problem(thumbnail(api, obj, HTTP_IF_NONE_MATCH="*"), 404, 10304)


def test_a_picture_that_is_no_image_is_404_10304_and_no_thumbnail(api, org, media):
    obj = with_picture(ObjectFactory(organization=org), b"GIF89a not really", "broken.jpg")
    assert fetched(api, obj)["has_thumbnail"] is True  # not known until it is read

    with mock.patch.object(thumbnails, "make_jpeg", wraps=thumbnails.make_jpeg) as made:
        assert_problem(thumbnail(api, obj), 404, 10304)
        assert_problem(thumbnail(api, obj), 404, 10304)

    assert made.call_count == 1  # not read again until it is replaced
    assert fetched(api, obj)["has_thumbnail"] is False
    assert listed(api)[0]["has_thumbnail"] is False
    with_picture(BookableObject.objects.get(pk=obj.pk))
    assert thumbnail(api, obj).status_code == 200
    assert fetched(api, obj)["has_thumbnail"] is True


def test_a_picture_whose_file_is_gone_is_404_10304(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))
    default_storage.delete(obj.thumbnail.name)

    assert_problem(thumbnail(api, obj), 404, 10304)


def test_a_picture_of_too_many_pixels_is_not_decoded(api, org, media):
    obj = with_picture(ObjectFactory(organization=org), jpeg_of((600, 400)))

    with mock.patch.object(thumbnails, "MAX_PIXELS", 600 * 400 - 1):
        assert_problem(thumbnail(api, obj), 404, 10304)


def test_a_thumbnail_whose_stored_file_is_gone_is_made_again(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))
    first = thumbnail(api, obj)
    obj.refresh_from_db()
    default_storage.delete(obj.thumbnail_small.name)

    again = thumbnail(api, obj)

    assert again.status_code == 200 and again.content == first.content


def test_a_shared_objects_thumbnail_is_shown(api, org, other_org, media):
    shared = with_picture(ObjectFactory(organization=other_org))
    ObjectShareFactory(object=shared, organization=org)

    assert thumbnail(api, shared).status_code == 200
    assert_problem(thumbnail(api, with_picture(ObjectFactory(organization=other_org))), 404, 10100)


# --- callers, rights and conventions --------------------------------------------------------------------------


def test_the_objects_read_right_is_needed(org, member):
    obj = ObjectFactory(organization=org)
    without = MobileApi(issue_member_tokens(member, make_app_client(rights={"bookings": "rw"})).access_token)

    for path in ("/objects", f"/objects/{obj.pk}", f"/objects/{obj.pk}/thumbnail"):
        assert_problem(without.get(path), 403, 10002)


def test_the_apps_own_token_and_no_token_are_refused(org, app_client):
    obj = ObjectFactory(organization=org)
    app_only = MobileApi(issue_app_token(app_client))

    for path in ("/objects", f"/objects/{obj.pk}", f"/objects/{obj.pk}/thumbnail"):
        assert_problem(app_only.get(path), 403, 10305)
        assert_problem(MobileApi().get(path), 401, 10001)
        assert_problem(MobileApi("wrong").get(path), 401, 10001)


def test_only_get_is_offered_and_trailing_slashes_are_404(api, org):
    obj = ObjectFactory(organization=org)

    for path in ("/objects", f"/objects/{obj.pk}", f"/objects/{obj.pk}/thumbnail"):
        response = api.call("POST", path, json={})
        assert_problem(response, 405, 10050)
        assert response["Allow"] == "GET, HEAD"
        assert api.get(f"{path}/").status_code == 404


def test_json_replies_are_not_cached(api, org):
    obj = ObjectFactory(organization=org)

    assert api.get("/objects")["Cache-Control"] == "private, no-store"
    assert api.get(f"/objects/{obj.pk}")["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize(
    "query",
    [
        "limit=%00",
        "limit=99999999999999999999999",
        "offset=1e9",
        "include=status%00",
        "include=%ED%A0%80",
        "exclude=%ED%A0%80",
        "include_total=maybe",
    ],
)
def test_hostile_parameters_are_400(api, org, query):
    obj = ObjectFactory(organization=org)

    assert api.get(f"/objects?{query}").status_code == 400
    if not query.startswith(("limit", "offset", "include_total")):
        assert api.get(f"/objects/{obj.pk}?{query}").status_code == 400


def test_hostile_ids_are_404(api, org):
    for path in ("/objects/99999999999999999999999", "/objects/-1", "/objects/1x", "/objects/%00/thumbnail"):
        assert api.get(path).status_code == 404, path


# --- queries -------------------------------------------------------------------------------------------------


def test_the_list_with_every_block_costs_the_same_at_limit_1_and_500(
    api, org, other_org, frozen_time, django_assert_max_num_queries
):
    objects = BookableObject.objects.bulk_create(
        BookableObject(organization=org, registration=f"SE-{n:04d}", airborne_minutes=60 * n) for n in range(260)
    )
    shared = BookableObject.objects.bulk_create(
        BookableObject(organization=other_org, registration=f"LN-{n:04d}", disclaimer_text="Careful")
        for n in range(260)
    )
    ObjectShare.objects.bulk_create(ObjectShare(object=obj, organization=org) for obj in shared)
    writer = UserFactory()
    MaintenanceItem.objects.bulk_create(
        MaintenanceItem(object=obj, name=f"Check {n}", due_date=dt.date(2027, 1, 1), due_airborne=Decimal(n + 50))
        for n, obj in enumerate(objects + shared)
    )
    Remark.objects.bulk_create(
        Remark(object=obj, description="Squeak", category=n % 3, created_at=frozen_time_now(), created_by=writer)
        for n, obj in enumerate(objects + shared)
    )

    api.get("/objects", data={"limit": 1})  # the block list is read and cached outside the counted calls

    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/objects", data={"limit": 1, "include": ALL_BLOCKS}).json()["data"]) == 1
    # The member's access token, the login and the page: one statement that also reads the maintenance items and
    # the open remarks (each once for the status and its own block: apicore.database.WithBlockRows).
    assert len(at_limit_1) == 3, [query["sql"] for query in at_limit_1]

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/objects", data={"limit": 500, "include": ALL_BLOCKS}).json()
    assert body["meta"]["count"] == 500
    assert body["data"][0]["registration"] == "SE-0000" and body["data"][260]["registration"] == "LN-0000"
    assert all(len(entry["active_remarks"]) == 1 for entry in body["data"])
    with django_assert_max_num_queries(len(at_limit_1)):
        api.get(f"/objects/{objects[0].pk}", data={"include": ALL_BLOCKS})


def frozen_time_now():
    return dt.datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def test_a_stored_thumbnail_costs_no_more_than_the_object(api, org, media, django_assert_max_num_queries):
    obj = with_picture(ObjectFactory(organization=org))
    thumbnail(api, obj)

    with CaptureQueriesContext(connection) as item:
        api.get(f"/objects/{obj.pk}")
    with django_assert_max_num_queries(len(item)):
        assert thumbnail(api, obj).status_code == 200


# --- the OpenAPI document ------------------------------------------------------------------------------------


def test_replies_conform_to_the_mobile_document(api, org, other_org, media, frozen_time):
    from tests.test_openapi import MOBILE_BASE, Conformance, deref

    document = Client().get(f"{MOBILE_BASE}/openapi.json", secure=True).json()
    conformance = Conformance(document)
    aircraft = with_picture(ObjectFactory(organization=org, disclaimer_headline="Fuel"))
    RemarkFactory(object=aircraft, created_by=None)
    EquipmentFactory(organization=org)
    shared = ObjectFactory(organization=other_org, has_status=False)
    ObjectShareFactory(object=shared, organization=org)

    conformance.check(
        "GET", "/objects", api.get("/objects", data={"include": ALL_BLOCKS, "include_total": "true"}), 200
    )
    conformance.check("GET", "/objects", api.get("/objects", data={"limit": 1}), 200)
    conformance.check("GET", "/objects/{id}", api.get(f"/objects/{aircraft.pk}", data={"include": ALL_BLOCKS}), 200)
    conformance.check("GET", "/objects/{id}", api.get(f"/objects/{shared.pk}", data={"exclude": "model"}), 200)
    conformance.check("GET", "/objects/{id}", api.get("/objects/0"), 404)
    conformance.check("GET", "/objects", api.get("/objects", data={"include": "colour"}), 400)
    conformance.check("GET", "/objects/{id}/thumbnail", api.get(f"/objects/{shared.pk}/thumbnail"), 404)
    conformance.check("GET", "/objects/{id}/thumbnail", api.get("/objects/0/thumbnail"), 404)

    # The JPEG and the 304: status, media type and headers as documented (the body is no JSON to validate).
    operation = document["paths"]["/objects/{id}/thumbnail"]["get"]
    picture = thumbnail(api, aircraft)
    not_modified = thumbnail(api, aircraft, HTTP_IF_NONE_MATCH=picture["ETag"])
    for response in (picture, not_modified):
        reply = operation["responses"][str(response.status_code)]
        assert list(reply.get("content", {})) == (["image/jpeg"] if response.status_code == 200 else [])
        for name, header in reply["headers"].items():
            header = deref(document, header)
            assert response.has_header(name), name
            conformance.validate_value(
                header["schema"], int(response[name]) if header["schema"]["type"] == "integer" else response[name]
            )
    assert "If-None-Match" in {parameter["name"] for parameter in operation["parameters"]}
    codes = operation["responses"]["404"]["content"]["application/problem+json"]["schema"]["properties"]["code"]
    assert codes["enum"] == [10100, 10304]
    item = document["paths"]["/objects/{id}"]["get"]
    assert {p["name"] for p in item["parameters"] if p["in"] == "query"} == {"include", "exclude"}


def test_head_of_the_thumbnail_has_the_headers_and_no_body(api, org, media):
    obj = with_picture(ObjectFactory(organization=org))
    picture = thumbnail(api, obj)

    response = api.call("HEAD", f"/objects/{obj.pk}/thumbnail")

    assert response.status_code == 200
    assert response.content == b""
    assert (response["Content-Type"], response["ETag"], response["Cache-Control"]) == (
        "image/jpeg",
        picture["ETag"],
        THUMBNAIL_CACHE,
    )
