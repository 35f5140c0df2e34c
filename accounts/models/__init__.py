from accounts.models.app_client import MOBILE_MODULES, AppClient
from accounts.models.expiry import ExpiryDateType, UserExpiryDate
from accounts.models.member import Member, MemberRole, Membership, Role, UserGroup
from accounts.models.mobile_login import AppConsent, BlockedAddress, MobileLogin
from accounts.models.organization import AppSetting, Organization
from accounts.models.user import User, UserEmail

__all__ = [
    "MOBILE_MODULES",
    "AppClient",
    "AppConsent",
    "AppSetting",
    "BlockedAddress",
    "ExpiryDateType",
    "Member",
    "MemberRole",
    "Membership",
    "MobileLogin",
    "Organization",
    "Role",
    "User",
    "UserEmail",
    "UserExpiryDate",
    "UserGroup",
]
