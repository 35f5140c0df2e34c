"""The Mobile API v5 routes of the member and the organization held to the contract checks of tests/contract/:
GET /client, /me, /organization, /organization/settings and /sun-times."""

from accounts.models import AppSetting
from tests.contract import MOBILE_V5, EndpointContract


class TestClient(EndpointContract):
    flavour = MOBILE_V5
    path = "/client"
    shaped = False  # no parameters at all
    accepts_app_token = True  # the one route the app's own token may call
    queries = {"GET": 1}


class TestMe(EndpointContract):
    flavour = MOBILE_V5
    path = "/me"
    shaped = False
    queries = {"GET": 1}


class TestOrganization(EndpointContract):
    flavour = MOBILE_V5
    path = "/organization"
    module = "organization"
    shaped = False
    queries = {"GET": 0}


class TestSettings(EndpointContract):
    """An item is an app setting shown in the app; the list's key is its setting id."""

    flavour = MOBILE_V5
    path = "/organization/settings"
    module = "organization"
    lists = True
    queries = {"GET": 1}

    def make(self, organization):
        setting_id = 1000 + AppSetting.objects.count()  # another organization's has another id
        return AppSetting.objects.create(
            organization=organization, setting_id=setting_id, name=f"Setting {setting_id}", value="1", value_type="int"
        )

    def key(self, item):
        return item.setting_id


class TestSunTimes(EndpointContract):
    flavour = MOBILE_V5
    path = "/sun-times"
    module = "organization"
    shaped = False  # date_from and date_to only
    queries = {"GET": 0}
