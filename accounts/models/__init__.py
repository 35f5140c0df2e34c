from .app_client import MOBILE_MODULES, AppClient
from .expiry import ExpiryDateType, UserExpiryDate
from .member import Member, MemberRole, Membership, Role, UserGroup
from .mobile_login import AppConsent, BlockedAddress, MobileLogin
from .organization import AppSetting, Organization
from .token import MODULES, ApiToken
from .user import User, UserEmail

__all__ = [
    "MOBILE_MODULES",
    "MODULES",
    "ApiToken",
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
