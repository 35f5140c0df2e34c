"""The User resource of the Main API v5, presented from a member record (one organization's view of a login).

Every block costs at most one query for the whole list: select_related, prefetches and annotations.
"""

from decimal import Decimal

from django.db.models import DecimalField, Exists, OuterRef, Prefetch, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Lower

from apicore import clock
from apicore.presenters import Block, Presenter, attr, ref
from economy.models import Transaction

from ..expiry import date_expired
from ..models import MemberRole, Role, UserEmail, UserExpiryDate, UserGroup

SENSITIVE = ("users_sensitive",)
ROLE_ORDER = {role: index for index, role in enumerate(Role.values)}


def invalid_email_exists():
    return Exists(UserEmail.objects.filter(user_id=OuterRef("user_id"), invalid=True))


def _balance():
    sums = (
        Transaction.objects.filter(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id"))
        .order_by()
        .values("user_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    money = DecimalField(max_digits=14, decimal_places=2)
    return Coalesce(Subquery(sums, output_field=money), Value(Decimal("0")), output_field=money)


def _text(name: str):
    """A text column; empty is null (a missing value)."""
    read = attr(name)
    return lambda obj: read(obj) or None


def _money(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _date(value) -> str | None:
    return None if value is None else value.isoformat()


def _expiry_dates(member) -> list[dict]:
    today = clock.today_in(member.organization.timezone)
    return [
        {
            "id": date.type_id,
            "name": date.type.name,
            "expiry_date": date.expiry_date.isoformat(),
            "expired": date_expired(date.expiry_date, today=today),
        }
        for date in member.sorted_expiry_dates
    ]


def _prefetch(lookup: str, queryset, to_attr: str):
    return lambda qs: qs.prefetch_related(Prefetch(lookup, queryset=queryset, to_attr=to_attr))


class UserPresenter(Presenter):
    fields = {
        "id": attr("user_id"),
        "username": attr("user.username"),
        "member_number": attr("member_number"),
        "ksak_member_number": _text("user.ksak_member_number"),
        "nlf_member_number": _text("user.nlf_member_number"),
        "name": attr("user.name"),
        "first_name": attr("user.first_name"),
        "last_name_particle": _text("user.last_name_particle"),
        "last_name": attr("user.last_name"),
        "last_first_name": attr("user.last_first_name"),
        "membership": ref("membership"),
        "active": attr("active"),
        "locked": attr("locked"),
        "locked_login": attr("user.locked_login"),
        "has_invalid_email_address": attr("has_invalid_email_address"),
    }
    blocks = {
        "email": Block(
            render=lambda m: [
                {"address": e.address, "invalid": e.invalid, "invalid_reason": e.invalid_reason or None}
                for e in m.user.sorted_emails
            ],
            prepare=_prefetch("user__emails", UserEmail.objects.order_by("position"), "sorted_emails"),
        ),
        "address": Block(
            render=lambda m: {
                "street_address": [row for row in (m.user.street_address_1, m.user.street_address_2) if row],
                "postal_code": m.user.postal_code or None,
                "city": m.user.city or None,
                "country": m.user.country or None,
            }
        ),
        "phone": Block(
            render=lambda m: {
                "home": m.user.phone_home or None,
                "work": m.user.phone_work or None,
                "mobile": {
                    "country_code": m.user.mobile_country_code or None,
                    "initial_number": m.user.mobile_initial_number or None,
                    "number": m.user.mobile_number or None,
                },
            }
        ),
        "user_groups": Block(
            render=lambda m: [{"id": group.id, "name": group.name} for group in m.sorted_groups],
            prepare=_prefetch("user_groups", UserGroup.objects.order_by(Lower("name"), "id"), "sorted_groups"),
        ),
        "roles": Block(
            # to_attr: a plain list per member, without a queryset built for each of them.
            render=lambda m: sorted((r.role for r in m.role_rows), key=ROLE_ORDER.__getitem__),
            prepare=_prefetch("roles", MemberRole.objects.only("member_id", "role"), "role_rows"),
        ),
        "expiry_dates": Block(
            render=_expiry_dates,
            prepare=_prefetch(
                "expiry_dates",
                UserExpiryDate.objects.select_related("type")
                .only("member_id", "type_id", "expiry_date", "type__name")
                .order_by(Lower("type__name"), "type_id"),
                "sorted_expiry_dates",
            ),
        ),
        "account": Block(
            render=lambda m: {
                "balance": _money(m.balance),
                "annual_fee": _money(m.annual_fee),
                "external_customer_number": m.external_customer_number or None,
            },
            prepare=lambda qs: qs.annotate(balance=_balance()),
        ),
        "misc_info": Block(render=_text("misc_info")),
        "personal_identification_number": Block(
            render=_text("user.personal_identification_number"), extra_modules=SENSITIVE
        ),
        "internal_notes": Block(render=_text("internal_notes"), extra_modules=SENSITIVE),
        "emergency_contact": Block(
            render=lambda m: {
                "name": m.user.emergency_contact_name or None,
                "phone": m.user.emergency_contact_phone or None,
                "relation": m.user.emergency_contact_relation or None,
            },
            extra_modules=SENSITIVE,
        ),
        "access_card": Block(
            render=lambda m: {
                "number": m.access_card_number or None,
                "code": m.access_card_code or None,
                "expiry_date": _date(m.access_card_expiry_date),
            },
            extra_modules=SENSITIVE,
        ),
    }

    def prepare_base(self, queryset):
        return queryset.select_related("user", "membership", "organization").annotate(
            has_invalid_email_address=invalid_email_exists()
        )
