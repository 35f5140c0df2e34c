"""What accounts announces to the apps above it, which act on it without accounts knowing them."""

from django.dispatch import Signal

# A person's password changed (sent inside the save's transaction): the Mobile API ends every app login of
# the person (document 2: "Changes to a member's password end every login"). Arguments: user.
password_changed = Signal()
