"""Conventions 2-6 for request bodies, shown through POST/PATCH /expiry-date-types."""

import pytest
from django.db import DatabaseError

from accounts import services
from accounts.models import ExpiryDateType
from tests.helpers import problem_fields


def test_body_that_is_not_a_json_object_is_10004(api):
    for raw in ("[1, 2]", '"text"', "{not json", ""):
        response = api.call("POST", "/expiry-date-types", data=raw, content_type="application/json")
        assert response.status_code == 400, raw
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == 10004, raw
    assert not ExpiryDateType.objects.exists()


def test_form_encoded_body_is_not_a_json_object(api):
    """A form is not JSON: 415 10004 (issue 18: another media type than application/json is 415)."""
    response = api.call("POST", "/expiry-date-types", data={"name": "Medical"})
    assert response.status_code == 415
    assert response.json()["code"] == 10004
    assert not ExpiryDateType.objects.exists()


def test_unknown_body_field_is_10007_and_names_it(api):
    response = api.post("/expiry-date-types", {"name": "Medical", "colour": "red", "booking": {"strict": True}})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 10007
    assert problem_fields(response) == {"colour": 10007, "booking.strict": 10007}
    assert not ExpiryDateType.objects.exists()


def test_id_in_body_is_refused(api):
    response = api.post("/expiry-date-types", {"id": 5, "name": "Medical"})
    assert response.status_code == 400
    assert problem_fields(response) == {"id": 10007}


def test_wrong_types_are_all_named_at_once_with_their_paths(api):
    response = api.post(
        "/expiry-date-types",
        {
            "name": 7,
            "may_never_expire": "true",
            "booking": {"required": 1, "excluded_object_ids": [3, "4", True]},
            "reminders": {"days_before": 366},
        },
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 10006
    assert body["type"].endswith("/errors/validation")
    assert problem_fields(response) == {
        "name": 10006,
        "may_never_expire": 10006,
        "booking.required": 10006,
        "booking.excluded_object_ids[1]": 10006,
        "booking.excluded_object_ids[2]": 10006,
        "reminders.days_before": 10006,
    }
    assert all(item["message"] for item in body["errors"])


def test_unknown_and_wrong_fields_together_give_10006(api):
    response = api.post("/expiry-date-types", {"name": 7, "colour": "red"})
    assert response.json()["code"] == 10006
    assert problem_fields(response) == {"name": 10006, "colour": 10007}


def test_missing_required_field_is_named(api):
    response = api.post("/expiry-date-types", {"may_never_expire": True})
    assert response.status_code == 400
    assert problem_fields(response) == {"name": 10006}


@pytest.mark.parametrize("empty", [None, ""])
def test_field_without_a_value_is_400(api, empty):
    response = api.post("/expiry-date-types", {"name": "Medical", "image_required": empty})
    assert response.status_code == 400
    assert problem_fields(response) == {"image_required": 10006}
    response = api.post("/expiry-date-types", {"name": empty})
    assert problem_fields(response) == {"name": 10006}


def test_post_replies_201_with_location_and_the_item_as_get_gives_it(api):
    response = api.post("/expiry-date-types", {"name": "Medical", "booking": {"required": True}})
    assert response.status_code == 201
    created = response.json()["data"]
    assert response["Location"] == f"https://testserver/main/v5/expiry-date-types/{created['id']}"
    fetched = api.get(f"/expiry-date-types/{created['id']}").json()["data"]
    assert created == fetched


def test_post_and_patch_accept_exclude(api):
    response = api.call("POST", "/expiry-date-types?exclude=booking,reminders", json={"name": "Medical"})
    assert response.status_code == 201
    assert "booking" not in response.json()["data"] and "reminders" not in response.json()["data"]
    item_id = response.json()["data"]["id"]
    response = api.call("PATCH", f"/expiry-date-types/{item_id}?exclude=name", json={"image_required": True})
    assert response.status_code == 200
    assert "name" not in response.json()["data"]
    assert response.json()["data"]["image_required"] is True


def test_unknown_query_parameter_on_a_write_is_refused_and_nothing_saved(api):
    response = api.call("POST", "/expiry-date-types?verbose=true", json={"name": "Medical"})
    assert response.status_code == 400
    assert response.json()["code"] == 10007
    assert not ExpiryDateType.objects.exists()


def test_delete_replies_204_without_body(api, org):
    expiry_type = services.expiry_date_type_create(organization=org, name="Medical")
    response = api.delete(f"/expiry-date-types/{expiry_type.pk}")
    assert response.status_code == 204
    assert response.content == b""
    assert not ExpiryDateType.objects.filter(pk=expiry_type.pk).exists()


def test_a_database_fault_gives_500_10010_and_saves_nothing(api, monkeypatch):
    original = ExpiryDateType.save

    def save_then_fail(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise DatabaseError("disk full")

    monkeypatch.setattr(ExpiryDateType, "save", save_then_fail)
    api.client.raise_request_exception = False
    response = api.post("/expiry-date-types", {"name": "Medical"})
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == 10010
    assert body["request_id"] == response["Request-Id"]
    monkeypatch.setattr(ExpiryDateType, "save", original)
    assert not ExpiryDateType.objects.exists()


def test_any_other_fault_gives_500_10020_and_saves_nothing(api, monkeypatch):
    def create_then_fail(**kwargs):
        ExpiryDateType.objects.create(**kwargs)
        raise RuntimeError("bug")

    monkeypatch.setattr("accounts.api.main_v5.services.expiry_date_type_create", create_then_fail)
    api.client.raise_request_exception = False
    response = api.post("/expiry-date-types", {"name": "Medical"})
    assert response.status_code == 500
    assert response.json()["code"] == 10020
    assert response.json()["type"].endswith("/errors/internal")
    assert not ExpiryDateType.objects.exists()
