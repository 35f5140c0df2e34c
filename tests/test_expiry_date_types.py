from accounts import services
from accounts.models import ExpiryDateType, UserExpiryDate
from tests.factories import MemberFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory
from tests.helpers import assert_problem, problem_fields


def test_defaults_of_a_new_type(api):
    response = api.post("/expiry-date-types", {"name": "Licence"})
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "name": "Licence",
        "may_never_expire": False,
        "members_can_change": False,
        "image_required": False,
        "booking": {"required": False, "warning_only": False, "also_for_students": False, "excluded_object_ids": []},
        "reminders": {"at_login": False, "days_before": 30},
    }


def test_duplicate_name_in_any_letter_case_is_409_10030(api, medical):
    response = api.post("/expiry-date-types", {"name": "MEDICAL"})
    assert_problem(response, 409, 10030)
    assert problem_fields(response) == {"name": 10030}
    assert ExpiryDateType.objects.count() == 1


def test_same_name_in_another_organization_is_fine(other_api, medical):
    assert other_api.post("/expiry-date-types", {"name": "Medical"}).status_code == 201


def test_name_longer_than_30_characters_is_refused_not_cut(api):
    response = api.post("/expiry-date-types", {"name": "x" * 31})
    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {"name": 10006}
    assert not ExpiryDateType.objects.exists()
    assert api.post("/expiry-date-types", {"name": "x" * 30}).status_code == 201


def test_list_is_sorted_by_name_and_searchable(api, org):
    for name in ("medical", "Class rating", "Licence"):
        services.expiry_date_type_create(organization=org, name=name)
    names = [item["name"] for item in api.get("/expiry-date-types").json()["data"]]
    assert names == ["Class rating", "Licence", "medical"]
    found = api.get("/expiry-date-types", {"name": "*i*"}).json()["data"]
    assert [item["name"] for item in found] == ["Class rating", "Licence", "medical"]
    found = api.get("/expiry-date-types", {"name": "*cen*"}).json()["data"]
    assert [item["name"] for item in found] == ["Licence"]
    found = api.get("/expiry-date-types", {"name": "l*"}).json()["data"]
    assert [item["name"] for item in found] == ["Licence"]


def test_list_offers_no_blocks(api, medical):
    response = api.get("/expiry-date-types", {"include": "users"})
    assert response.status_code == 400


def test_patch_changes_only_the_fields_sent(api, medical):
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"booking": {"required": True}})
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["booking"]["required"] is True
    assert data["may_never_expire"] is True
    assert data["reminders"] == {"at_login": False, "days_before": 30}


def test_patch_replaces_the_excluded_objects(api, org, medical):
    first, second, third = (ObjectFactory(organization=org) for _ in range(3))
    api.patch(f"/expiry-date-types/{medical.pk}", {"booking": {"excluded_object_ids": [first.pk, second.pk]}})
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"booking": {"excluded_object_ids": [third.pk]}})
    assert response.json()["data"]["booking"]["excluded_object_ids"] == [third.pk]


def test_excluded_objects_are_the_organizations_own_or_shared_ones(api, org, other_org, medical):
    own = ObjectFactory(organization=org)
    shared = ObjectShareFactory(object__organization=other_org, organization=org).object
    foreign = ObjectFactory(organization=other_org)

    refused = api.patch(
        f"/expiry-date-types/{medical.pk}", {"booking": {"excluded_object_ids": [own.pk, foreign.pk, 999999]}}
    )
    created = api.post("/expiry-date-types", {"name": "Licence", "booking": {"excluded_object_ids": [foreign.pk]}})
    accepted = api.patch(f"/expiry-date-types/{medical.pk}", {"booking": {"excluded_object_ids": [own.pk, shared.pk]}})

    assert_problem(refused, 400, 10006)
    assert problem_fields(refused) == {
        "booking.excluded_object_ids[1]": 10006,
        "booking.excluded_object_ids[2]": 10006,
    }
    assert_problem(created, 400, 10006)
    assert problem_fields(created) == {"booking.excluded_object_ids[0]": 10006}
    assert not ExpiryDateType.objects.filter(name="Licence").exists()
    assert accepted.json()["data"]["booking"]["excluded_object_ids"] == [own.pk, shared.pk]


def test_patch_with_no_fields_is_400_10105(api, medical):
    response = api.patch(f"/expiry-date-types/{medical.pk}", {})
    assert response.status_code == 400
    assert response.json()["code"] == 10105


def test_patch_cannot_change_the_name_or_empty_a_value(api, medical):
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"name": "Other"})
    assert response.status_code == 400
    assert response.json()["code"] == 10007
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"image_required": None})
    assert response.status_code == 400
    medical.refresh_from_db()
    assert (medical.name, medical.image_required) == ("Medical", False)


def test_patch_switching_off_may_never_expire_keeps_existing_dates(api, org, medical):
    member = MemberFactory(organization=org)
    UserExpiryDate.objects.create(member=member, type=medical, expiry_date="2999-12-31")
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"may_never_expire": False})
    assert response.json()["data"]["may_never_expire"] is False
    assert UserExpiryDate.objects.get(member=member).expiry_date.isoformat() == "2999-12-31"


def test_delete_with_dependents_is_409_10106_and_deletes_nothing(api, org, medical):
    for _ in range(2):
        UserExpiryDate.objects.create(member=MemberFactory(organization=org), type=medical, expiry_date="2027-01-01")
    response = api.delete(f"/expiry-date-types/{medical.pk}")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == 10106
    assert body["dependents"] == [{"name": "user_expiry_dates", "count": 2}]
    assert body["detail"]
    assert ExpiryDateType.objects.filter(pk=medical.pk).exists()
    assert UserExpiryDate.objects.count() == 2

    response = api.delete(f"/expiry-date-types/{medical.pk}?delete_dependents=false")
    assert response.status_code == 409


def test_delete_with_delete_dependents_removes_the_dates_too(api, org, medical):
    UserExpiryDate.objects.create(member=MemberFactory(organization=org), type=medical, expiry_date="2027-01-01")
    response = api.delete(f"/expiry-date-types/{medical.pk}?delete_dependents=true")
    assert response.status_code == 204
    assert not ExpiryDateType.objects.exists()
    assert not UserExpiryDate.objects.exists()


def test_delete_dependents_must_be_true_or_false(api, medical):
    response = api.delete(f"/expiry-date-types/{medical.pk}?delete_dependents=1")
    assert response.status_code == 400
    assert ExpiryDateType.objects.filter(pk=medical.pk).exists()


def test_another_organizations_type_is_neither_listed_nor_reachable(other_api, medical):
    assert other_api.get("/expiry-date-types").json()["data"] == []
    for method in ("get", "patch", "delete"):
        kwargs = {"json": {"image_required": True}} if method == "patch" else {}
        response = getattr(other_api, method)(f"/expiry-date-types/{medical.pk}", **kwargs)
        assert response.status_code == 404, method
        assert response.json()["code"] == 10100
    medical.refresh_from_db()
    assert medical.image_required is False


def test_unknown_type_is_404(api):
    assert api.get("/expiry-date-types/999").status_code == 404
    assert api.patch("/expiry-date-types/999", {"image_required": True}).status_code == 404
    assert api.delete("/expiry-date-types/999").status_code == 404


def test_patch_with_only_empty_nested_objects_is_400_10105(api, medical):
    response = api.patch(f"/expiry-date-types/{medical.pk}", {"booking": {}, "reminders": {}})
    assert response.status_code == 400
    assert response.json()["code"] == 10105
