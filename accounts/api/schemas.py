"""Request bodies of the Main API v5 for accounts."""

from apicore import schema as s

_EXPIRY_TYPE_SETTINGS = {
    "may_never_expire": s.Bool(),
    "members_can_change": s.Bool(),
    "image_required": s.Bool(),
    "booking": s.Obj(
        {
            "required": s.Bool(),
            "warning_only": s.Bool(),
            "also_for_students": s.Bool(),
            "excluded_object_ids": s.ListOf(
                s.Int(minimum=1),
                description="Ids of the objects the organization owns or is shared (GET /objects); any other id is "
                "400 10006.",
            ),
        }
    ),
    "reminders": s.Obj({"at_login": s.Bool(), "days_before": s.Int(minimum=0, maximum=365)}),
}


class ExpiryDateTypeCreate(s.Schema):
    fields = {"name": s.Text(required=True, max_length=30), **_EXPIRY_TYPE_SETTINGS}


class ExpiryDateTypeUpdate(s.Schema):
    fields = _EXPIRY_TYPE_SETTINGS


def expiry_type_settings(body: dict) -> dict:
    """Nested body fields to the model's flat setting names."""
    flat = {key: body[key] for key in ("may_never_expire", "members_can_change", "image_required") if key in body}
    for group in ("booking", "reminders"):
        for key, value in body.get(group, {}).items():
            name = "booking_excluded_object_ids" if key == "excluded_object_ids" else f"{group}_{key}"
            flat[name] = value
    return flat
