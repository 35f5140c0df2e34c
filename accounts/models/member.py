from django.conf import settings
from django.db import models


class NamedGroup(models.Model):
    """A named set of an organization's members: memberships and user groups have the same shape."""

    name = models.CharField(max_length=100)

    class Meta:
        abstract = True
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(NamedGroup):
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="memberships")


class UserGroup(NamedGroup):
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="user_groups")


class Member(models.Model):
    """A login's record in one organization."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="members")
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="members")
    member_number = models.CharField(max_length=30)
    membership = models.ForeignKey(Membership, null=True, blank=True, on_delete=models.SET_NULL, related_name="members")
    user_groups = models.ManyToManyField(UserGroup, blank=True, related_name="members")
    active = models.BooleanField(default=True)
    locked = models.BooleanField(default=False)
    # The account; its balance is the sum of the member's transactions (economy).
    annual_fee = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    external_customer_number = models.CharField(max_length=50, blank=True)
    misc_info = models.TextField(blank=True)
    internal_notes = models.TextField(blank=True)
    access_card_number = models.CharField(max_length=50, blank=True)
    access_card_code = models.CharField(max_length=10, blank=True)
    access_card_expiry_date = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="member_one_per_user_and_organization"),
            models.UniqueConstraint(fields=["organization", "member_number"], name="member_number_unique_in_org"),
        ]

    def __str__(self) -> str:
        return f"{self.member_number} {self.user}"


class Role(models.TextChoices):
    ADMIN = "admin", "Administrator"
    INSTRUCTOR = "instructor", "Instructor"
    STUDENT = "student", "Student"
    BOARD_MEMBER = "board_member", "Board member"
    MAINTENANCE = "maintenance", "Maintenance"


class MemberRole(models.Model):
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="roles")
    role = models.CharField(max_length=20, choices=Role.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "role"], name="member_role_once")]

    def __str__(self) -> str:
        return self.role
