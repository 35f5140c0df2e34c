"""What bookings answers of the signals of the apps below it: the webhooks' events of bookings that go, or
change, with a login, an object or an organization being deleted."""

from django.dispatch import receiver

from accounts.signals import login_deleting, organization_deleting
from apicore import clock
from bookings.models import Booking
from bookings.services import bookings_going_record
from objects_app.events import object_event_record
from objects_app.signals import object_deleting


@receiver(login_deleting)
def bookings_of_deleted_login_record(sender, *, user, **kwargs) -> None:
    """A login's bookings go with it (booking.delete, every one: document 3 limits the event to bookings not
    ended only for a deleted aircraft), and those not ended that it is the student of lose their student
    (booking.update: the person it is for changes)."""
    bookings_going_record(Booking.objects.filter(user=user))
    for booking in Booking.objects.filter(student=user, end_at__gt=clock.now()).select_related("object"):
        object_event_record(event_type="booking.update", object=booking.object, entity_id=booking.pk)


@receiver(object_deleting)
def bookings_of_deleted_object_record(sender, *, object, **kwargs) -> None:
    """Its bookings that have not ended are told as booking.delete (document 3)."""
    bookings_going_record(Booking.objects.filter(object=object, end_at__gt=clock.now()))


@receiver(organization_deleting)
def bookings_of_deleted_organization_record(sender, *, organization, **kwargs) -> None:
    """The clubs its objects are shared with hear of the bookings not ended that go with them."""
    bookings_going_record(Booking.objects.filter(object__organization=organization, end_at__gt=clock.now()))
