"""Request bodies of POST and PATCH /users (Main API v5). Lengths are those of the columns."""

import re

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from accounts import usernames
from apicore import schema as s

DIGITS = re.compile(r"^[0-9]+$")


class Digits(s.Text):
    """Text of the digits 0-9 only (str.isdigit would also take '²' and other scripts' digits)."""

    pattern = DIGITS.pattern

    def convert(self, value, path, problems):
        value = super().convert(value, path, problems)
        if not DIGITS.match(value):
            raise s.Invalid("must contain the digits 0-9 only")
        return value


class CountryCode(s.Text):
    """46, +46 or 0046; the service stores the digits."""

    pattern = r"^(?:\+|00)?[1-9][0-9]{0,2}$"


class Email(s.Text):
    # What Django's validate_email takes, for the document. A pattern and no `format: email`: JSON Schema's
    # email format differs from Django's validator both ways (one-letter top domains, punycode labels).
    pattern = (
        r"^[-!#$%&'*+/=?^_`{}|~0-9A-Za-z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9A-Za-z]+)*"
        r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9]{1,59})$"
    )

    def __init__(self, **kwargs):
        super().__init__(max_length=254, **kwargs)

    def convert(self, value, path, problems):
        value = super().convert(value, path, problems)
        try:
            validate_email(value)
        except ValidationError:
            raise s.Invalid("is not an email address") from None
        return value


def _contact(emptiable: bool) -> dict[str, s.Field]:
    """email, address and phone: the same in POST and PATCH, except that PATCH may empty values."""
    text = {"emptiable": emptiable}
    return {
        "email": s.ListOf(Email(), max_items=2, **text),
        "address": s.Obj(
            {
                "street_address": s.ListOf(s.Text(max_length=200), max_items=2, **text),
                "postal_code": s.Text(max_length=20, **text),
                "city": s.Text(max_length=100, **text),
                "country": s.Text(max_length=100, **text),
            },
            **text,
        ),
        "phone": s.Obj(
            {
                "home": s.Text(max_length=40, **text),
                "work": s.Text(max_length=40, **text),
                "mobile": s.Obj(
                    {
                        # The form is checked by the service (with the organization's other checks).
                        "country_code": CountryCode(max_length=5, **text),
                        "initial_number": Digits(max_length=10, **text),
                        "number": Digits(max_length=20, **text),
                    },
                    **text,
                ),
            },
            **text,
        ),
    }


class Username(s.Text):
    """A new username: the organization's id and a dash first, then no space, control or invisible character."""

    pattern = usernames.PREFIXED_PATTERN


class UserCreate(s.Schema):
    fields = {
        "username": Username(
            required=True,
            max_length=usernames.MAX_LENGTH,
            description="Starts with the caller's organization's id and a dash (GET /organization), e.g. 12-erik. "
            + usernames.VISIBLE_DESCRIPTION,
        ),
        "member_number": s.Text(max_length=30),
        "ksak_member_number": Digits(max_length=20),
        "external_customer_number": s.Text(max_length=50),
        "first_name": s.Text(required=True, max_length=150),
        "last_name": s.Text(required=True, max_length=150),
        "last_name_particle": s.Text(max_length=50),
        "personal_identification_number": s.Text(max_length=20),
        "membership_id": s.Int(
            required=True, minimum=1, description="One of the organization's memberships (GET /memberships)."
        ),
        "user_groups": s.ListOf(
            s.Int(minimum=1), description="Ids of the organization's user groups (GET /user-groups)."
        ),
        **_contact(emptiable=False),
        "emergency_contact": s.Obj(
            {"name": s.Text(max_length=200), "phone": s.Text(max_length=40), "relation": s.Text(max_length=100)}
        ),
    }


class UserUpdate(s.Schema):
    fields = {
        "first_name": s.Text(max_length=150),
        "last_name": s.Text(max_length=150),
        "last_name_particle": s.Text(max_length=50, emptiable=True),
        "active": s.Bool(),
        **_contact(emptiable=True),
        "misc_info": s.Text(emptiable=True),
        "internal_notes": s.Text(emptiable=True),
        "access_card": s.Obj(
            {
                "number": s.Text(max_length=50, emptiable=True),
                "code": s.Text(max_length=10, emptiable=True),
                "expiry_date": s.Date(emptiable=True),
            },
            emptiable=True,
        ),
    }
