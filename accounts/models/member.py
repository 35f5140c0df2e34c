from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def _organization_key(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name=related_name, verbose_name=_("organization")
    )


class NamedGroup(models.Model):
    """A named set of an organization's members: memberships and user groups have the same shape."""

    name = models.CharField(_("name"), max_length=100)

    class Meta:
        abstract = True
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(NamedGroup):
    organization = _organization_key("memberships")

    class Meta(NamedGroup.Meta):
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")


class UserGroup(NamedGroup):
    organization = _organization_key("user_groups")

    class Meta(NamedGroup.Meta):
        verbose_name = _("user group")
        verbose_name_plural = _("user groups")


class Member(models.Model):
    """A login's record in one organization."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="members", verbose_name=_("user")
    )
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="members", verbose_name=_("organization")
    )
    member_number = models.CharField(_("member number"), max_length=30)
    membership = models.ForeignKey(
        Membership,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="members",
        verbose_name=_("membership"),
    )
    user_groups = models.ManyToManyField(UserGroup, blank=True, related_name="members", verbose_name=_("user groups"))
    active = models.BooleanField(_("active"), default=True)
    locked = models.BooleanField(_("locked"), default=False)
    # The account; its balance is the sum of the member's transactions (economy).
    annual_fee = models.DecimalField(_("annual fee"), max_digits=12, decimal_places=2, null=True, blank=True)
    external_customer_number = models.CharField(_("external customer number"), max_length=50, blank=True)
    misc_info = models.TextField(_("other information"), blank=True)
    internal_notes = models.TextField(_("internal notes"), blank=True)
    access_card_number = models.CharField(_("access card number"), max_length=50, blank=True)
    access_card_code = models.CharField(_("access card code"), max_length=10, blank=True)
    access_card_expiry_date = models.DateField(_("access card expiry date"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="member_one_per_user_and_organization"),
            models.UniqueConstraint(fields=["organization", "member_number"], name="member_number_unique_in_org"),
        ]
        verbose_name = _("member")
        verbose_name_plural = _("members")

    def __str__(self) -> str:
        # The person's name, as the website's titles, messages and delete pages show the member.
        name = self.user.full_name
        return f"{name} ({self.member_number})" if self.member_number else name


def _member_in_group(row) -> str:
    return _("%(member)s in %(group)s") % {"member": row.member, "group": row.usergroup}


# The rows of member.user_groups (Django makes their model, named "Member-usergroup relationship" in English
# whatever the language), as a delete page lists them. Not migrated: an automatic through model has no state.
Member.user_groups.through.__str__ = _member_in_group
Member.user_groups.through._meta.verbose_name = _("user group of a member")
Member.user_groups.through._meta.verbose_name_plural = _("user groups of members")


class Role(models.TextChoices):
    ADMIN = "admin", _("Administrator")
    INSTRUCTOR = "instructor", _("Instructor")
    STUDENT = "student", _("Student")
    BOARD_MEMBER = "board_member", _("Board member")
    MAINTENANCE = "maintenance", _("Maintenance")


class MemberRole(models.Model):
    tenant_path = "member__organization"

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="roles", verbose_name=_("member"))
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "role"], name="member_role_once")]
        verbose_name = _("member role")
        verbose_name_plural = _("member roles")

    def __str__(self) -> str:
        return str(self.get_role_display())
