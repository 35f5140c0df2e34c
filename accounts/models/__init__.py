from accounts.models.expiry import ExpiryDateType, UserExpiryDate
from accounts.models.member import Member, MemberRole, Membership, Role, UserGroup
from accounts.models.organization import AppSetting, Organization
from accounts.models.user import User, UserEmail

__all__ = [
    "AppSetting",
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
