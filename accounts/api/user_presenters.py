"""The User resource of the Main API v5, presented from a member record (one organization's view of a login).

Every block costs at most one query for the whole page: columns of the page's query, or one Related query.
"""

from decimal import Decimal

from django.db.models.functions import Lower

from accounts.expiry import date_expired
from accounts.models import Member, MemberRole, Role, UserEmail, UserExpiryDate
from accounts.models.user import last_first_name_of
from accounts.selectors import invalid_email_exists
from apicore.presenters import (
    BOOLEAN,
    DATE,
    INTEGER,
    NUMBER,
    REF,
    STRING,
    Block,
    Expr,
    Field,
    GeneratedItems,
    KeyedRows,
    Presenter,
    Related,
    array,
    enum,
    iso_date,
    nullable,
    obj,
    ref,
    text_or_none,
)
from economy.selectors import balance_expression

SENSITIVE = ("users_sensitive",)
ROLE_ORDER = {role: index for index, role in enumerate(Role.values)}
NULLABLE_TEXT = nullable(STRING)


def _text(path: str, block: type = Field, **options):
    """A text column; empty is null (a missing value)."""
    return block(NULLABLE_TEXT, path, compute=text_or_none, **options)


def _money(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


# --- Related blocks: one query per page each, compiled once (KeyedRows) -----------------------------------

_EMAIL_ROWS = KeyedRows(
    lambda user_ids: (
        UserEmail.objects.filter(user_id__in_keys=user_ids)
        .order_by("user_id", "position")
        .values_list("user_id", "address", "invalid", "invalid_reason")
    )
)
_GROUP_ROWS = KeyedRows(
    lambda member_ids: (
        Member.user_groups.through.objects.filter(member_id__in_keys=member_ids)
        .order_by("member_id", Lower("usergroup__name"), "usergroup_id")
        .values_list("member_id", "usergroup_id", "usergroup__name")
    )
)
_ROLE_ROWS = KeyedRows(
    lambda member_ids: MemberRole.objects.filter(member_id__in_keys=member_ids).values_list("member_id", "role")
)
_EXPIRY_DATE_ROWS = KeyedRows(
    lambda member_ids: (
        UserExpiryDate.objects.filter(member_id__in_keys=member_ids)
        .order_by("member_id", Lower("type__name"), "type_id")
        .values_list("member_id", "type_id", "type__name", "expiry_date")
    )
)


def _emails(_model, user_ids, _context):
    for user_id, address, invalid, reason in _EMAIL_ROWS.rows(user_ids):
        yield user_id, {"address": address, "invalid": invalid, "invalid_reason": reason or None}


def _user_groups(_model, member_ids, _context):
    for member_id, group_id, name in _GROUP_ROWS.rows(member_ids):
        yield member_id, {"id": group_id, "name": name}


def _roles(_model, member_ids, _context):
    return sorted(_ROLE_ROWS.rows(member_ids), key=lambda row: (row[0], ROLE_ORDER[row[1]]))


def _expiry_dates(_model, member_ids, context):
    today = context.today
    for member_id, type_id, name, expiry_date in _EXPIRY_DATE_ROWS.rows(member_ids):
        yield (
            member_id,
            {
                "id": type_id,
                "name": name,
                "expiry_date": expiry_date.isoformat(),
                "expired": date_expired(expiry_date, today=today),
            },
        )


EMAIL = obj(address=STRING, invalid=BOOLEAN, invalid_reason=NULLABLE_TEXT)
USER_EXPIRY_DATE = obj(id=INTEGER, name=STRING, expiry_date=DATE, expired=BOOLEAN)


class UserPresenter(GeneratedItems, Presenter):
    rows_by_keys = True  # the endpoints annotate nothing the presenter reads
    fields = {
        "id": Field(INTEGER, "user_id"),
        "username": Field(STRING, "user__username"),
        "member_number": Field(STRING, "member_number"),
        "ksak_member_number": _text("user__ksak_member_number"),
        "nlf_member_number": _text("user__nlf_member_number"),
        "name": Field(STRING, "user__name"),
        "first_name": Field(STRING, "user__first_name"),
        "last_name_particle": _text("user__last_name_particle"),
        "last_name": Field(STRING, "user__last_name"),
        "last_first_name": Field(
            STRING, "user__first_name", "user__last_name_particle", "user__last_name", compute=last_first_name_of
        ),
        "membership": ref("membership"),
        "active": Field(BOOLEAN, "active"),
        "locked": Field(BOOLEAN, "locked"),
        "locked_login": Field(BOOLEAN, "user__locked_login"),
        "has_invalid_email_address": Field(BOOLEAN, Expr("has_invalid_email_address", invalid_email_exists)),
    }
    blocks = {
        "email": Block(array(EMAIL), related=Related("user_id", load=_emails)),
        "address": Block(
            obj(street_address=array(STRING), postal_code=NULLABLE_TEXT, city=NULLABLE_TEXT, country=NULLABLE_TEXT),
            "user__street_address_1",
            "user__street_address_2",
            "user__postal_code",
            "user__city",
            "user__country",
            compute=lambda street_1, street_2, postal_code, city, country: {
                "street_address": [row for row in (street_1, street_2) if row],
                "postal_code": postal_code or None,
                "city": city or None,
                "country": country or None,
            },
        ),
        "phone": Block(
            obj(
                home=NULLABLE_TEXT,
                work=NULLABLE_TEXT,
                mobile=obj(country_code=NULLABLE_TEXT, initial_number=NULLABLE_TEXT, number=NULLABLE_TEXT),
            ),
            "user__phone_home",
            "user__phone_work",
            "user__mobile_country_code",
            "user__mobile_initial_number",
            "user__mobile_number",
            compute=lambda home, work, country_code, initial_number, number: {
                "home": home or None,
                "work": work or None,
                "mobile": {
                    "country_code": country_code or None,
                    "initial_number": initial_number or None,
                    "number": number or None,
                },
            },
        ),
        "user_groups": Block(array(REF), related=Related("id", load=_user_groups)),
        "roles": Block(array(enum(Role.values)), related=Related("id", load=_roles)),
        "expiry_dates": Block(array(USER_EXPIRY_DATE), related=Related("id", load=_expiry_dates)),
        "account": Block(
            obj(balance=NUMBER, annual_fee=nullable(NUMBER), external_customer_number=NULLABLE_TEXT),
            Expr("balance", balance_expression),
            "annual_fee",
            "external_customer_number",
            compute=lambda balance, annual_fee, customer_number: {
                "balance": _money(balance),
                "annual_fee": _money(annual_fee),
                "external_customer_number": customer_number or None,
            },
        ),
        "misc_info": _text("misc_info", Block),
        "personal_identification_number": _text("user__personal_identification_number", Block, extra_modules=SENSITIVE),
        "internal_notes": _text("internal_notes", Block, extra_modules=SENSITIVE),
        "emergency_contact": Block(
            obj(name=NULLABLE_TEXT, phone=NULLABLE_TEXT, relation=NULLABLE_TEXT),
            "user__emergency_contact_name",
            "user__emergency_contact_phone",
            "user__emergency_contact_relation",
            compute=lambda name, phone, relation: {
                "name": name or None,
                "phone": phone or None,
                "relation": relation or None,
            },
            extra_modules=SENSITIVE,
        ),
        "access_card": Block(
            obj(number=NULLABLE_TEXT, code=NULLABLE_TEXT, expiry_date=nullable(DATE)),
            "access_card_number",
            "access_card_code",
            "access_card_expiry_date",
            compute=lambda number, code, expiry_date: {
                "number": number or None,
                "code": code or None,
                "expiry_date": iso_date(expiry_date),
            },
            extra_modules=SENSITIVE,
        ),
    }
