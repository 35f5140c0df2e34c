import datetime as dt

import time_machine
from oauth2_provider.models import AccessToken

from main_api.tasks import oauth_tokens_clear_expired


def test_expired_access_tokens_are_cleared_and_live_ones_kept(api, make_api, org):
    with time_machine.travel(dt.datetime(2026, 11, 25, 8, 0, tzinfo=dt.UTC), tick=False):
        api.fetch_access_token()
    with time_machine.travel(dt.datetime(2026, 11, 25, 10, 0, tzinfo=dt.UTC), tick=False):
        live = make_api(org)
        live_token = live.fetch_access_token()
        assert AccessToken.objects.count() == 2

        oauth_tokens_clear_expired.delay()

        assert AccessToken.objects.count() == 1
        assert live.get("/token", bearer=live_token).status_code == 200
