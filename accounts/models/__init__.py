from .app_client import MOBILE_MODULES, AppClient
from .expiry import ExpiryDateType, UserExpiryDate
from .member import Member, MemberRole, Membership, Role, UserGroup
from .organization import Organization
from .token import MODULES, ApiToken
from .user import User, UserEmail

__all__ = [
    "MOBILE_MODULES",
    "MODULES",
    "ApiToken",
    "AppClient",
    "ExpiryDateType",
    "Member",
    "MemberRole",
    "Membership",
    "Organization",
    "Role",
    "User",
    "UserEmail",
    "UserExpiryDate",
    "UserGroup",
]
