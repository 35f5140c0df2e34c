"""Who calls the Mobile API: `request.auth` of every Mobile API v5 call (mobile_api.auth)."""

from dataclasses import dataclass
from typing import Any

from accounts.models import Member
from mobile_api.models import AppClient, MobileLogin


@dataclass(frozen=True)
class MobileCaller:
    """The app client, and for a member's token its login and member."""

    client: AppClient
    login: MobileLogin | None
    member: Member | None
    access_token: Any

    @property
    def is_member(self) -> bool:
        return self.login is not None

    def allows(self, module: str, right: str) -> bool:
        return self.client.allows(module, right)
