from django.contrib.auth.models import AbstractUser
from django.db import models, router, transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from accounts.signals import password_changed
from accounts.usernames import username_skeleton


def join_name(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def full_name_of(name: str, first_name: str, particle: str, last_name: str, username: str) -> str:
    """A login's display name from its columns (presenters read columns, not instances)."""
    return name or join_name(first_name, particle, last_name) or username


def last_first_name_of(first_name: str, particle: str, last_name: str) -> str:
    first = join_name(first_name, particle)
    return f"{last_name}, {first}" if first else last_name


class User(AbstractUser):
    """One login per person, shared by every organization the person is a member of.

    What describes the person (names, contact data, national numbers) lives here; what the person is in
    one club lives on Member.
    """

    # A login is of the organizations it is a member of (apicore.tenancy).
    tenant_path = "members__organization"

    # What look-alike usernames share (accounts.usernames.username_skeleton), kept so that a new username is
    # compared with every other by one lookup in the unique index. Set on every save that makes or changes the
    # username; NULL only for a login that looked like an older one when the column came (migration 0013).
    username_skeleton = models.TextField(_("username skeleton"), null=True, blank=True, editable=False)  # noqa: DJ001 NULLs never clash
    last_name_particle = models.CharField(_("last name particle"), max_length=50, blank=True)
    # The full name, kept in a column so that lists can be searched and sorted by it in SQL.
    name = models.CharField(_("full name"), max_length=320, blank=True, editable=False, db_index=True)
    # A login stopped by support: the person cannot log in anywhere.
    locked_login = models.BooleanField(_("login locked"), default=False)

    street_address_1 = models.CharField(_("street address"), max_length=200, blank=True)
    street_address_2 = models.CharField(_("street address, line 2"), max_length=200, blank=True)
    postal_code = models.CharField(_("postal code"), max_length=20, blank=True)
    city = models.CharField(_("city"), max_length=100, blank=True)
    country = models.CharField(_("country"), max_length=100, blank=True)

    phone_home = models.CharField(_("home phone"), max_length=40, blank=True)
    phone_work = models.CharField(_("work phone"), max_length=40, blank=True)
    # Country code stored as digits only ("46" whether written 46, +46 or 0046).
    mobile_country_code = models.CharField(_("mobile country code"), max_length=4, blank=True)
    mobile_initial_number = models.CharField(_("mobile prefix"), max_length=10, blank=True)
    mobile_number = models.CharField(_("mobile number"), max_length=20, blank=True)
    # The member's own choice whether other members see these beside a booking (hidden: null in the APIs).
    email_visible = models.BooleanField(_("email visible to other members"), default=True)
    mobile_visible = models.BooleanField(_("mobile visible to other members"), default=True)

    personal_identification_number = models.CharField(_("personal identity number"), max_length=20, blank=True)
    emergency_contact_name = models.CharField(_("emergency contact"), max_length=200, blank=True)
    emergency_contact_phone = models.CharField(_("emergency contact's phone"), max_length=40, blank=True)
    emergency_contact_relation = models.CharField(_("emergency contact's relation"), max_length=100, blank=True)

    ksak_member_number = models.CharField(_("KSAK member number"), max_length=20, null=True, blank=True, unique=True)
    nlf_member_number = models.CharField(_("NLF member number"), max_length=20, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="user_username_unique_any_case"),
            # Logins made by an organization carry its id as the prefix, and no prefix's skeleton is another's
            # (digits keep their own, `0` and `1` become `o` and `l`), so this is "unique in the organization".
            models.UniqueConstraint(fields=["username_skeleton"], name="user_username_skeleton_unique"),
        ]
        verbose_name = _("user")
        verbose_name_plural = _("users")

    # set_unusable_password() was called since the last save (set_password() leaves Django's `_password`).
    _password_dropped = False

    def set_unusable_password(self):
        super().set_unusable_password()
        self._password_dropped = True

    # The username as loaded, to tell whether a save changes it.
    _loaded_username = None

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._loaded_username = instance.__dict__.get("username")
        return instance

    def refresh_from_db(self, *args, **kwargs):
        super().refresh_from_db(*args, **kwargs)
        self._loaded_username = self.__dict__.get("username")

    def save(self, *args, **kwargs):
        self.name = join_name(self.first_name, self.last_name_particle, self.last_name)
        update_fields = kwargs.get("update_fields")
        username = self.__dict__.get("username")  # None when deferred and not read: then it does not change
        changes_username = username is not None and (self._state.adding or username != self._loaded_username)
        if changes_username and (update_fields is None or "username" in update_fields):
            self.username_skeleton = username_skeleton(username)
            self._loaded_username = username
            if update_fields is not None:
                kwargs["update_fields"] = update_fields = {*update_fields, "username_skeleton"}
        if update_fields is not None and {"first_name", "last_name", "last_name_particle"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "name"}
        # A changed password is announced (accounts.signals.password_changed) inside the save's transaction:
        # here, so that the reset and change pages, the admin's password form and any set_password() + save()
        # all do it. A plain save costs nothing more; a new login has nothing to end; Django's own rehash on
        # login (check_password) clears `_password` and so announces nothing.
        saves_password = update_fields is None or "password" in update_fields
        password_changed_now = (
            saves_password and (self._password is not None or self._password_dropped) and not self._state.adding
        )
        if saves_password:
            self._password_dropped = False
        if not password_changed_now:
            super().save(*args, **kwargs)
            return
        with transaction.atomic(using=kwargs.get("using") or router.db_for_write(type(self), instance=self)):
            super().save(*args, **kwargs)
            password_changed.send(sender=type(self), user=self)

    @property
    def full_name(self) -> str:
        return full_name_of(self.name, self.first_name, self.last_name_particle, self.last_name, self.username)

    @property
    def last_first_name(self) -> str:
        return last_first_name_of(self.first_name, self.last_name_particle, self.last_name)

    def created_by(self, organization_id: int) -> bool:
        """Logins made by an organization carry its id as the username's prefix."""
        return self.username.startswith(f"{organization_id}-")


class UserEmail(models.Model):
    """At most two addresses per login, in order; a bounced address is marked invalid."""

    tenant_path = "user__members__organization"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="emails", verbose_name=_("user"))
    position = models.PositiveSmallIntegerField(
        _("position"),
    )
    address = models.EmailField(
        _("address"),
    )
    invalid = models.BooleanField(_("invalid"), default=False)
    invalid_reason = models.CharField(_("why invalid"), max_length=200, blank=True)

    class Meta:
        ordering = ["user", "position"]
        constraints = [
            models.UniqueConstraint(fields=["user", "position"], name="user_email_position_once"),
            models.CheckConstraint(condition=models.Q(position__lt=2), name="user_email_at_most_two"),
        ]
        verbose_name = _("email address")
        verbose_name_plural = _("email addresses")

    def __str__(self) -> str:
        return self.address


# The columns of a login's display name, and the name as User.full_name gives it.
NAME_COLUMNS = ("name", "first_name", "last_name_particle", "last_name", "username")


def name_columns(path: str) -> tuple[str, ...]:
    return tuple(f"{path}__{column}" for column in NAME_COLUMNS)
