"""The API's JSON renderer (orjson) writes the same bytes as DRF's JSONRenderer with the same settings."""

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from rest_framework.renderers import JSONRenderer

from apicore.renderers import ApiJSONRenderer


class DrfReference(JSONRenderer):
    charset = None
    compact = True
    ensure_ascii = False


DOCUMENTS = [
    {"data": [{"id": 1, "name": "Åsa af Öberg", "balance": 12.3, "tags": [], "none": None, "ok": True}]},
    {"money": Decimal("12.30"), "negative": Decimal("-0.25"), "whole": Decimal("1200")},
    {"date": dt.date(2026, 6, 15), "at": dt.datetime(2026, 6, 15, 8, 30, 1, 123456, tzinfo=dt.UTC)},
    {"at": dt.datetime(2026, 6, 15, 8, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))), "t": dt.time(7, 5)},
    {"id": uuid.UUID(int=7), "separators": "a\u2028b\u2029c", "quote": 'say "hi"\n', "emoji": "✈️"},
    {"big": 2**70, "nested": {"deep": [1, 2.5, {"x": None}]}},
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_same_bytes_as_drf(document):
    assert ApiJSONRenderer().render(document) == DrfReference().render(document)


def test_money_is_a_json_number_without_trailing_zeros():
    assert ApiJSONRenderer().render({"balance": Decimal("12.30")}) == b'{"balance":12.3}'


def test_compact_utf8_and_nothing_for_none():
    assert ApiJSONRenderer().render({"name": "Västerås", "list": [1, 2]}) == '{"name":"Västerås","list":[1,2]}'.encode()
    assert ApiJSONRenderer().render(None) == b""
