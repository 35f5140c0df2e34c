"""Expiry dates on the organization website: a member's dates with their images (an inline of the member page)
and the expiry date types, saved through the same services as the Main API."""

import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import ExpiryDateType, Member, UserExpiryDate
from accounts.services import expiry_date_type_create
from tests.admin_fixtures import ADMIN, form_data, listed, make_admin_of, page_errors, shown_messages, web
from tests.factories import MemberFactory, UserFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory

MEMBERS = f"{ADMIN}/accounts/member"
TYPES = f"{ADMIN}/accounts/expirydatetype"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def client(admin):
    return web(admin)


@pytest.fixture
def medical(org):
    return expiry_date_type_create(organization=org, name="Medical", image_required=True)


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__username=f"{org.pk}-anna", user__first_name="Anna")


def scan(name: str = "medical.pdf", content: bytes = b"%PDF-1.4 certificate") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def member_page(client, member) -> dict:
    return form_data(client.get(f"{MEMBERS}/{member.pk}/change/"))


def post_member(client, member, data):
    return client.post(f"{MEMBERS}/{member.pk}/change/", data)


def row_prefix(data: dict, expiry_type) -> str:
    """The inline row of the type on the page ("expiry_dates-0"), or the first empty row."""
    rows = int(data["expiry_dates-TOTAL_FORMS"])
    for index in range(rows):
        if (
            data.get(f"expiry_dates-{index}-id")
            and UserExpiryDate.objects.get(pk=data[f"expiry_dates-{index}-id"]).type_id == expiry_type.pk
        ):
            return f"expiry_dates-{index}"
    empty = next(index for index in range(rows) if not data.get(f"expiry_dates-{index}-id"))
    return f"expiry_dates-{empty}"


def set_date(client, member, expiry_type, expiry_date: str, image=None, **member_values):
    data = member_page(client, member)
    prefix = row_prefix(data, expiry_type)
    data[f"{prefix}-type"] = str(expiry_type.pk)
    data[f"{prefix}-expiry_date"] = expiry_date
    if image is not None:
        data[f"{prefix}-image"] = image
    data.update(member_values)
    return post_member(client, member, data)


def stored(member, expiry_type) -> UserExpiryDate:
    return UserExpiryDate.objects.get(member=member, type=expiry_type)


def on_disk(media, name: str) -> bool:
    return bool(name) and (media / name).is_file()


# --- a member's dates ------------------------------------------------------------------------------------------


def test_a_new_date_with_its_image_is_saved(client, member, medical, media):
    response = set_date(client, member, medical, "2027-05-31", image=scan())

    assert response.status_code == 302, page_errors(response)
    row = stored(member, medical)
    assert row.expiry_date == dt.date(2027, 5, 31)
    assert row.image.name.startswith("expiry-dates/")
    assert (media / row.image.name).read_bytes() == b"%PDF-1.4 certificate"
    # The page links the image to the admin's own address, which serves it.
    page = client.get(f"{MEMBERS}/{member.pk}/change/")
    image_url = f"{MEMBERS}/{member.pk}/expiry-dates/{row.pk}/image/"
    assert f'href="{image_url}"' in page.content.decode()
    assert b"".join(client.get(image_url).streaming_content) == b"%PDF-1.4 certificate"


def test_a_different_date_removes_the_image_and_its_file_after_the_commit(
    client, member, medical, media, django_capture_on_commit_callbacks
):
    set_date(client, member, medical, "2027-05-31", image=scan())
    UserExpiryDate.objects.filter(member=member).update(reminded_at="2027-05-01T08:00:00Z")
    old = stored(member, medical).image.name

    with django_capture_on_commit_callbacks(execute=True):
        response = set_date(client, member, medical, "2028-05-31")
        assert on_disk(media, old)  # not before the commit

    assert response.status_code == 302, page_errors(response)
    row = stored(member, medical)
    assert (row.expiry_date, row.image.name, row.reminded_at) == (dt.date(2028, 5, 31), "", None)
    assert not on_disk(media, old)


def test_the_same_date_keeps_the_image_and_a_new_image_replaces_the_old_file(
    client, member, medical, media, django_capture_on_commit_callbacks
):
    set_date(client, member, medical, "2027-05-31", image=scan())
    first = stored(member, medical).image.name

    with django_capture_on_commit_callbacks(execute=True):
        assert post_member(client, member, member_page(client, member)).status_code == 302
    assert stored(member, medical).image.name == first and on_disk(media, first)

    with django_capture_on_commit_callbacks(execute=True):
        response = set_date(client, member, medical, "2027-05-31", image=scan("renewed.pdf", b"new"))
    assert response.status_code == 302, page_errors(response)
    second = stored(member, medical).image.name
    assert second != first
    assert (media / second).read_bytes() == b"new"
    assert not on_disk(media, first)


def test_a_date_and_an_image_are_changed_together(client, member, medical, media, django_capture_on_commit_callbacks):
    set_date(client, member, medical, "2027-05-31", image=scan())
    first = stored(member, medical).image.name

    with django_capture_on_commit_callbacks(execute=True):
        set_date(client, member, medical, "2029-01-31", image=scan("renewed.pdf", b"renewed"))

    row = stored(member, medical)
    assert row.expiry_date == dt.date(2029, 1, 31)
    assert (media / row.image.name).read_bytes() == b"renewed"
    assert not on_disk(media, first)


def test_an_image_is_cleared_and_a_date_deleted_with_its_file(
    client, member, medical, media, django_capture_on_commit_callbacks
):
    licence = expiry_date_type_create(organization=member.organization, name="Licence")
    set_date(client, member, medical, "2027-05-31", image=scan())
    set_date(client, member, licence, "2027-08-31", image=scan("licence.pdf"))
    medical_file, licence_file = stored(member, medical).image.name, stored(member, licence).image.name

    data = member_page(client, member)
    with django_capture_on_commit_callbacks(execute=True):
        data[f"{row_prefix(data, medical)}-image-clear"] = "on"
        data[f"{row_prefix(data, licence)}-DELETE"] = "on"
        response = post_member(client, member, data)

    assert response.status_code == 302, page_errors(response)
    assert stored(member, medical).image.name == ""
    assert not UserExpiryDate.objects.filter(member=member, type=licence).exists()
    assert not on_disk(media, medical_file) and not on_disk(media, licence_file)


def test_never_expires_needs_the_types_permission_and_a_refusal_saves_nothing(
    client, member, medical, media, django_capture_on_commit_callbacks
):
    set_date(client, member, medical, "2027-05-31", image=scan())
    first = stored(member, medical).image.name

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = set_date(client, member, medical, "2999-12-31", misc_info="changed too")

    errors = page_errors(response)
    (row_errors,) = [row for row in errors["rows"] if row]
    assert "cannot be 2999-12-31" in row_errors["expiry_date"][0]
    assert "cannot be 2999-12-31" in errors[""][0]
    assert callbacks == []
    row = stored(member, medical)
    assert (row.expiry_date, row.image.name) == (dt.date(2027, 5, 31), first)
    assert on_disk(media, first)
    assert Member.objects.get(pk=member.pk).misc_info == ""

    medical.may_never_expire = True
    medical.save()
    assert set_date(client, member, medical, "2999-12-31").status_code == 302
    assert stored(member, medical).expiry_date == dt.date(2999, 12, 31)


def test_a_new_members_dates_are_saved_with_the_member(client, org, medical):
    membership = org.memberships.create(name="Senior")
    data = form_data(client.get(f"{MEMBERS}/add/"))
    data.update(
        {
            "username": f"{org.pk}-eva",
            "first_name": "Eva",
            "last_name": "Ek",
            "membership": str(membership.pk),
            "expiry_dates-0-type": str(medical.pk),
            "expiry_dates-0-expiry_date": "2027-03-31",
            "expiry_dates-0-image": scan(),
        }
    )

    response = client.post(f"{MEMBERS}/add/", data)

    assert response.status_code == 302, page_errors(response)
    row = UserExpiryDate.objects.get(member__user__username=f"{org.pk}-eva")
    assert (row.type, row.expiry_date) == (medical, dt.date(2027, 3, 31))
    assert row.image.name


# --- one organization's dates ---------------------------------------------------------------------------------


def test_only_the_organizations_types_are_offered_and_accepted(client, org, other_org, member, medical):
    foreign = expiry_date_type_create(organization=other_org, name="Medicinsk")

    page = client.get(f"{MEMBERS}/{member.pk}/change/")
    inline = page.context["inline_admin_formsets"][0]
    assert list(inline.formset.forms[0].fields["type"].queryset) == [medical]
    response = set_date(client, member, foreign, "2027-01-01")

    assert "type" in [field for row in page_errors(response)["rows"] for field in row]
    assert not UserExpiryDate.objects.filter(member=member).exists()


def test_another_organizations_member_dates_and_images_are_unreachable(client, other_org, media):
    stranger = MemberFactory(organization=other_org)
    other_admin = UserFactory()
    make_admin_of(other_admin, other_org)
    foreign = expiry_date_type_create(organization=other_org, name="Medical")
    assert set_date(web(other_admin), stranger, foreign, "2027-01-01", image=scan()).status_code == 302
    row = stored(stranger, foreign)

    assert client.get(f"{MEMBERS}/{stranger.pk}/expiry-dates/{row.pk}/image/").status_code == 404
    assert web(other_admin).get(f"{MEMBERS}/{stranger.pk}/expiry-dates/{row.pk}/image/").status_code == 200
    assert client.get(f"{MEMBERS}/{stranger.pk}/change/").status_code == 302


# --- expiry date types ---------------------------------------------------------------------------------------------


def type_form(**values) -> dict:
    data = {"name": "Medical", "reminders_days_before": "30", "booking_excluded_object_ids": []}
    data.update(values)
    return data


def test_types_are_listed_and_searched_per_organization(client, org, other_org, medical):
    licence = expiry_date_type_create(organization=org, name="Licence")
    foreign = expiry_date_type_create(organization=other_org, name="Medical")

    assert set(listed(client.get(f"{TYPES}/"))) == {medical, licence}
    assert listed(client.get(f"{TYPES}/", {"q": "medic"})) == [medical]
    assert client.get(f"{TYPES}/{foreign.pk}/change/").status_code == 302
    client.post(f"{TYPES}/{foreign.pk}/change/", type_form(may_never_expire="on"))
    client.post(f"{TYPES}/{foreign.pk}/delete/", {"post": "yes", "delete_dependents": "yes"})
    client.post(f"{TYPES}/", {"action": "delete_selected", "_selected_action": [foreign.pk], "post": "yes"})
    foreign.refresh_from_db()
    assert foreign.may_never_expire is False


def test_a_type_is_made_through_the_service_and_a_name_in_use_is_refused(client, org, other_org, medical):
    expiry_date_type_create(organization=other_org, name="Licence")
    simulator, trainer = ObjectFactory(organization=org), ObjectFactory(organization=org)

    made = client.post(
        f"{TYPES}/add/",
        type_form(
            name="Licence",
            may_never_expire="on",
            booking_required="on",
            booking_excluded_object_ids=[str(trainer.pk), str(simulator.pk)],
            reminders_days_before="60",
            organization=str(other_org.pk),
        ),
    )
    in_use = client.post(f"{TYPES}/add/", type_form(name="MEDICAL"))
    too_long = client.post(f"{TYPES}/add/", type_form(name="x" * 31))

    assert made.status_code == 302, page_errors(made)
    licence = ExpiryDateType.objects.get(organization=org, name="Licence")
    assert (licence.may_never_expire, licence.booking_required, licence.reminders_days_before) == (True, True, 60)
    assert sorted(licence.booking_excluded_object_ids) == sorted([trainer.pk, simulator.pk])
    assert page_errors(in_use)["name"] == ["The name is in use (letter case does not count)."]
    assert "name" in page_errors(too_long)
    assert ExpiryDateType.objects.filter(organization=org).count() == 2


def test_a_types_settings_change_but_not_its_name(client, org, medical):
    url = f"{TYPES}/{medical.pk}/change/"
    simulator = ObjectFactory(organization=org)
    assert "name" not in client.get(url).context["adminform"].form.fields

    response = client.post(
        url,
        type_form(
            name="Renamed",
            members_can_change="on",
            reminders_days_before="14",
            booking_excluded_object_ids=[str(simulator.pk)],
        ),
    )

    assert response.status_code == 302, page_errors(response)
    medical.refresh_from_db()
    assert medical.name == "Medical"
    assert (medical.members_can_change, medical.image_required) == (True, False)
    assert (medical.reminders_days_before, medical.booking_excluded_object_ids) == (14, [simulator.pk])
    assert "reminders_days_before" in page_errors(client.post(url, type_form(reminders_days_before="366")))


def test_a_type_nothing_depends_on_is_deleted_at_once(client, org):
    lonely = expiry_date_type_create(organization=org, name="Lonely")

    page = client.get(f"{TYPES}/{lonely.pk}/delete/")
    assert 'name="delete_dependents"' not in page.content.decode()
    assert client.post(f"{TYPES}/{lonely.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not ExpiryDateType.objects.filter(pk=lonely.pk).exists()


def test_a_type_with_members_dates_is_deleted_only_when_the_dates_go_too(
    client, org, member, medical, media, django_capture_on_commit_callbacks
):
    second = MemberFactory(organization=org)
    set_date(client, member, medical, "2027-05-31", image=scan())
    set_date(client, second, medical, "2027-06-30")
    image = stored(member, medical).image.name
    url = f"{TYPES}/{medical.pk}/delete/"

    page = client.get(url).content.decode()
    assert "Members with a date of this type: 2." in page
    assert 'name="delete_dependents"' in page

    refused = client.post(url, {"post": "yes"}, follow=True)
    assert refused.redirect_chain[-1][0] == url
    assert any("Members with a date of this type: 2." in message for message in shown_messages(refused))
    assert UserExpiryDate.objects.filter(type=medical).count() == 2

    with django_capture_on_commit_callbacks(execute=True):
        deleted = client.post(url, {"post": "yes", "delete_dependents": "yes"})

    assert deleted.status_code == 302
    assert not ExpiryDateType.objects.filter(pk=medical.pk).exists()
    assert not UserExpiryDate.objects.filter(member__organization=org).exists()
    assert not on_disk(media, image)


def test_deleting_a_selection_of_types_refuses_those_with_dates(client, org, member, medical):
    lonely = expiry_date_type_create(organization=org, name="Lonely")
    set_date(client, member, medical, "2027-05-31")

    response = client.post(
        f"{TYPES}/",
        {"action": "delete_selected", "_selected_action": [medical.pk, lonely.pk], "post": "yes"},
        follow=True,
    )

    assert any("Medical: Members with a date of this type: 1." in message for message in shown_messages(response))
    assert ExpiryDateType.objects.filter(pk__in=[medical.pk, lonely.pk]).count() == 2


def test_the_type_page_is_on_the_organization_website(admin):
    from django.contrib import admin as django_admin

    from adminkit.site import OrganizationScopedAdmin

    assert isinstance(django_admin.site._registry[ExpiryDateType], OrganizationScopedAdmin)
    names = [entry["object_name"] for app in web(admin).get(f"{ADMIN}/").context["app_list"] for entry in app["models"]]
    assert "ExpiryDateType" in names


def test_excluded_objects_are_chosen_by_registration_among_own_and_shared_objects(client, org, other_org, medical):
    own = ObjectFactory(organization=org, registration="SE-KAA")
    shared = ObjectShareFactory(object__organization=other_org, object__registration="LN-ABC", organization=org).object
    foreign = ObjectFactory(organization=other_org, registration="SE-XXX")
    url = f"{TYPES}/{medical.pk}/change/"

    offered = client.get(url).context["adminform"].form.fields["booking_excluded_object_ids"]
    refused = client.post(url, type_form(booking_excluded_object_ids=[str(foreign.pk)]))
    saved = client.post(url, type_form(booking_excluded_object_ids=[str(own.pk), str(shared.pk)]))

    assert [label for _, label in offered.choices] == [f"LN-ABC (C172) · {other_org.name}", "SE-KAA (C172)"]
    assert "booking_excluded_object_ids" in page_errors(refused)
    assert saved.status_code == 302, page_errors(saved)
    medical.refresh_from_db()
    assert sorted(medical.booking_excluded_object_ids) == sorted([own.pk, shared.pk])
