"""What objects_app announces to the apps above it."""

from django.dispatch import Signal

# An object is about to be deleted with its bookings, shares, remarks and maintenance items (inside the
# deletion's transaction, while its shares still name the organizations to tell). Arguments: object.
object_deleting = Signal()
