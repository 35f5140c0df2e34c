from django.db.models import Prefetch
from django.db.models.functions import Lower

from apicore.presenters import Block, Presenter, attr, ref

from ..models import MODULES, Member


class TokenPresenter(Presenter):
    fields = {
        "description": attr("description"),
        "owner": lambda token: {"id": token.owner_id, "name": token.owner.full_name},
        "organization": ref("organization"),
        "rights": lambda token: {module: token.rights[module] for module in MODULES if token.rights.get(module)},
    }


class OrganizationPresenter(Presenter):
    fields = {
        "id": attr("id"),
        "name": attr("name"),
        "location": lambda org: {
            "reference_icao": org.reference_icao or None,
            "latitude": float(org.latitude) if org.latitude is not None else None,
            "longitude": float(org.longitude) if org.longitude is not None else None,
            "country": org.country or None,
            "timezone": org.timezone,
        },
    }


def _members_sorted_by_name():
    return Member.objects.select_related("user").order_by(Lower("user__name"), "user_id")


def _member_item(member: Member) -> dict:
    return {
        "id": member.user_id,
        "name": member.user.full_name,
        "member_number": member.member_number,
        "active": member.active,
    }


class GroupPresenter(Presenter):
    """Memberships and user groups: `{id, name}`, block `users` sorted by name."""

    fields = {"id": attr("id"), "name": attr("name")}
    blocks = {
        "users": Block(
            # Only member records of the item's own organization: a stray record of another organization
            # that points at this item never shows.
            render=lambda group: [
                _member_item(member)
                for member in group.sorted_members
                if member.organization_id == group.organization_id
            ],
            prepare=lambda qs: qs.prefetch_related(
                Prefetch("members", queryset=_members_sorted_by_name(), to_attr="sorted_members")
            ),
        )
    }


class ExpiryDateTypePresenter(Presenter):
    fields = {
        "id": attr("id"),
        "name": attr("name"),
        "may_never_expire": attr("may_never_expire"),
        "members_can_change": attr("members_can_change"),
        "image_required": attr("image_required"),
        "booking": lambda t: {
            "required": t.booking_required,
            "warning_only": t.booking_warning_only,
            "also_for_students": t.booking_also_for_students,
            "excluded_object_ids": list(t.booking_excluded_object_ids),
        },
        "reminders": lambda t: {"at_login": t.reminders_at_login, "days_before": t.reminders_days_before},
    }
