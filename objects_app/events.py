"""Webhook events about an object's bookings, flights and remarks, and who hears of them (document 3): the
object's organization and every organization the object is shared with, each in its own body."""

from django.db.models import Q

from accounts.models import Organization
from objects_app.models import BookableObject, ObjectShare
from webhooks.models import Delivery
from webhooks.services import event_record


def object_event_record(
    *,
    event_type: str,
    object: BookableObject,
    entity_id: int,
    change: str | None = None,
    previous_object: BookableObject | None = None,
) -> list[Delivery]:
    """Record an event on `object` (its booking, flight or remark `entity_id`). A booking or flight that moved
    from `previous_object` is told to that object's organizations too (once per webhook). Call it inside the
    change's transaction."""
    data = {"id": entity_id}
    if change is not None:
        data["change"] = change
    data["object_id"] = object.pk
    objects = [object] if previous_object is None or previous_object.pk == object.pk else [object, previous_object]
    sharing = ObjectShare.objects.filter(object_id__in=[told.pk for told in objects]).values("organization_id")
    # A sub-select, so that recording costs one query whoever hears of it.
    receivers = Organization.objects.filter(
        Q(pk__in={told.organization_id for told in objects}) | Q(pk__in=sharing)
    ).values("pk")
    return event_record(event_type=event_type, organization_ids=receivers, data=data)
