from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


def join_name(*parts: str) -> str:
    return " ".join(part for part in parts if part)


class User(AbstractUser):
    """One login per person, shared by every organization the person is a member of."""

    last_name_particle = models.CharField(max_length=50, blank=True)
    # The full name, kept in a column so that lists can be searched and sorted by it in SQL.
    name = models.CharField(max_length=320, blank=True, editable=False, db_index=True)
    # A login stopped by support: the person cannot log in anywhere.
    locked_login = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="user_username_unique_any_case"),
        ]

    def save(self, *args, **kwargs):
        self.name = join_name(self.first_name, self.last_name_particle, self.last_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"first_name", "last_name", "last_name_particle"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "name"}
        super().save(*args, **kwargs)

    @property
    def full_name(self) -> str:
        return self.name or join_name(self.first_name, self.last_name_particle, self.last_name) or self.username

    @property
    def last_first_name(self) -> str:
        first = join_name(self.first_name, self.last_name_particle)
        return f"{self.last_name}, {first}" if first else self.last_name
