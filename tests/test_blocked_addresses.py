"""The Mobile API's block list (document 2: 403 code 10003): an address or a network, checked before anything
else on every Mobile endpoint, a change applying at once, no query per call; and support's admin page."""

import pytest

from mobile_api.blocked_addresses import address_blocked
from mobile_api.models import BlockedAddress
from tests.admin_fixtures import ADMIN, page_errors, web
from tests.factories import MemberFactory, UserFactory
from tests.helpers import assert_problem
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db
PAGES = f"{ADMIN}/mobile_api/blockedaddress"
PATHS = ["/client", "/me"]


@pytest.fixture
def api(org):
    client = make_app_client()
    return MobileApi(issue_member_tokens(MemberFactory(organization=org), client).access_token)


def call_from(api, path: str, ip: str, **extra):
    return api.get(path, REMOTE_ADDR=ip, **extra)


@pytest.mark.parametrize("path", PATHS)
def test_an_exact_address_is_refused(api, path):
    BlockedAddress.objects.create(network="203.0.113.7")

    assert_problem(call_from(api, path, "203.0.113.7"), 403, 10003)
    assert call_from(api, path, "203.0.113.8").status_code == 200


@pytest.mark.parametrize("path", PATHS)
def test_a_network_is_refused(api, path):
    BlockedAddress.objects.create(network="198.51.100.0/24")

    assert_problem(call_from(api, path, "198.51.100.1"), 403, 10003)
    assert_problem(call_from(api, path, "198.51.100.254"), 403, 10003)
    assert call_from(api, path, "198.51.101.1").status_code == 200


def test_ipv6_networks_and_mapped_ipv4_addresses(api):
    BlockedAddress.objects.create(network="2001:db8::/32")
    BlockedAddress.objects.create(network="192.0.2.9")

    assert_problem(call_from(api, "/me", "2001:db8::1"), 403, 10003)
    assert_problem(call_from(api, "/me", "::ffff:192.0.2.9"), 403, 10003)
    assert call_from(api, "/me", "2001:db9::1").status_code == 200


def test_the_block_comes_before_every_token_check(api, org):
    BlockedAddress.objects.create(network="203.0.113.0/28")
    app_token = issue_app_token(make_app_client())

    ip = "203.0.113.3"
    responses = [
        MobileApi().get("/me", REMOTE_ADDR=ip),  # no credential: else 401
        call_from(api, "/me", ip, bearer="not-a-token"),  # else 401 invalid_token
        call_from(api, "/me", ip, bearer=app_token),  # else 403 10305
        call_from(api, "/me/?x=1", ip),  # an address no endpoint has: the catch-all's 404 (no flavour)
    ]
    for response in responses[:3]:
        body = assert_problem(response, 403, 10003)
        assert "WWW-Authenticate" not in response
        assert body["title"] == "The address is blocked"
    assert responses[3].status_code == 404
    # Not counted as a call either.
    assert "RateLimit-Limit" not in call_from(api, "/me", "203.0.113.3")


def test_a_change_applies_at_once(api):
    assert call_from(api, "/me", "203.0.113.7").status_code == 200  # the empty list is cached now

    entry = BlockedAddress.objects.create(network="203.0.113.0/24")
    assert_problem(call_from(api, "/me", "203.0.113.7"), 403, 10003)

    entry.network = "198.51.100.0/24"
    entry.save()
    assert call_from(api, "/me", "203.0.113.7").status_code == 200
    assert_problem(call_from(api, "/me", "198.51.100.5"), 403, 10003)

    entry.delete()
    assert call_from(api, "/me", "198.51.100.5").status_code == 200


def test_the_check_costs_no_query_once_cached(django_assert_num_queries):
    BlockedAddress.objects.create(network="203.0.113.0/24")
    assert address_blocked("203.0.113.1") is True  # loads the list

    with django_assert_num_queries(0):
        assert address_blocked("203.0.113.1") is True
        assert address_blocked("198.51.100.1") is False
        assert address_blocked("not an address") is False


def test_the_main_api_is_not_affected(org, make_api):
    BlockedAddress.objects.create(network="127.0.0.1")
    main = make_api(org)

    assert main.get("/token").status_code == 200  # the Main API has its own address lists per token


# --- the admin page -------------------------------------------------------------------------------------------


def test_support_adds_an_address_and_a_network_in_their_normal_form():
    support = web(UserFactory(is_superuser=True))

    assert support.post(f"{PAGES}/add/", {"network": " 203.0.113.7 ", "reason": "scraper"}).status_code == 302
    assert support.post(f"{PAGES}/add/", {"network": "198.51.100.77/24", "reason": ""}).status_code == 302
    assert support.post(f"{PAGES}/add/", {"network": "2001:DB8::/32", "reason": ""}).status_code == 302

    assert sorted(BlockedAddress.objects.values_list("network", flat=True)) == [
        "198.51.100.0/24",
        "2001:db8::/32",
        "203.0.113.7",
    ]
    assert address_blocked("198.51.100.1") and address_blocked("203.0.113.7")
    assert support.get(f"{PAGES}/").status_code == 200


@pytest.mark.parametrize("network", ["203.0.113.300", "example.com", "10.0.0.0/33", ""])
def test_the_form_refuses_what_is_no_address_with_a_clear_message(network):
    support = web(UserFactory(is_superuser=True))

    errors = page_errors(support.post(f"{PAGES}/add/", {"network": network, "reason": ""}))

    assert errors["network"], errors
    if network:
        assert "Enter an IP address such as 203.0.113.7" in errors["network"][0]
    assert not BlockedAddress.objects.exists()


def test_the_form_refuses_a_duplicate_written_differently():
    BlockedAddress.objects.create(network="198.51.100.0/24")
    support = web(UserFactory(is_superuser=True))

    errors = page_errors(support.post(f"{PAGES}/add/", {"network": "198.51.100.9/24", "reason": ""}))

    assert errors["network"] == ["This address or network is already blocked."]


def test_support_deletes_an_entry_and_it_applies_at_once(api):
    entry = BlockedAddress.objects.create(network="203.0.113.7")
    assert_problem(call_from(api, "/me", "203.0.113.7"), 403, 10003)
    support = web(UserFactory(is_superuser=True))

    assert support.post(f"{PAGES}/{entry.pk}/delete/", {"post": "yes"}).status_code == 302

    assert call_from(api, "/me", "203.0.113.7").status_code == 200


def test_an_organization_administrator_cannot_reach_the_pages(org, admin):
    entry = BlockedAddress.objects.create(network="203.0.113.7")
    browser = web(admin)

    assert "blockedaddress" not in browser.get(f"{ADMIN}/").content.decode()
    assert browser.get(f"{PAGES}/").status_code == 403
    assert browser.get(f"{PAGES}/add/").status_code == 403
    assert browser.post(f"{PAGES}/add/", {"network": "198.51.100.1"}).status_code == 403
    assert browser.get(f"{PAGES}/{entry.pk}/change/").status_code == 403
    assert browser.post(f"{PAGES}/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert list(BlockedAddress.objects.values_list("network", flat=True)) == ["203.0.113.7"]
