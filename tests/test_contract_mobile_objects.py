"""The Mobile API v5 routes of objects held to the contract checks of tests/contract/: GET /objects,
/objects/{id} and /objects/{id}/thumbnail. tests/test_mobile_v5_objects.py shows that objects shared with the
member's organization are listed and fetchable too, and inactive ones are not."""

import io

import pytest
from django.core.files.base import ContentFile
from PIL import Image

from objects_app import thumbnails
from tests.contract import MOBILE_V5, EndpointContract
from tests.factories_operations import ObjectFactory


class _Objects(EndpointContract):
    flavour = MOBILE_V5
    module = "objects"
    factory = ObjectFactory


class TestObjects(_Objects):
    path = "/objects"
    lists = True
    # Every block in the page's one statement (the blocks' rows with it: apicore.database.WithBlockRows).
    queries = {"GET": 1}
    queries_with_blocks = 1


class TestObject(_Objects):
    path = "/objects/{id}"
    queries = {"GET": 1}
    queries_with_blocks = 1


def jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (600, 400), (30, 90, 160)).save(out, "JPEG")
    return out.getvalue()


class TestObjectThumbnail(_Objects):
    """An object with a picture whose small picture is made already (the first call, which makes it, is
    tests/test_mobile_v5_objects.py's); the reply is the JPEG, which a day's private cache may keep."""

    path = "/objects/{id}/thumbnail"
    shaped = False  # no parameters at all
    media_type = "image/jpeg"
    headers = {"Cache-Control": "private, max-age=86400", "ETag": None}
    queries = {"GET": 1}

    @pytest.fixture(autouse=True)
    def _media(self, media):
        """Pictures go to a fresh folder of the test."""

    def make(self, organization):
        obj = ObjectFactory(organization=organization)
        obj.thumbnail.save("picture.jpg", ContentFile(jpeg()))
        thumbnails.small_picture(obj)
        return obj
