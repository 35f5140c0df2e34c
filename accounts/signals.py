"""What accounts announces to the apps above it, which act on it without accounts knowing them."""

from django.dispatch import Signal

# A person's password changed (sent inside the save's transaction): the Mobile API ends every app login of
# the person (document 2: "Changes to a member's password end every login"). Arguments: user.
password_changed = Signal()

# A member record is about to be deleted (sent inside the deletion's transaction, before anything goes): an app
# that keeps something of the member may refuse by raising ServiceError (economy: a balance not zero).
# Arguments: member.
member_deleting = Signal()

# A login is about to be deleted with what cascades from it (sent inside the deletion's transaction, while it
# all still exists): bookings records the webhooks' events of the bookings that go or change. Arguments: user.
login_deleting = Signal()

# An organization is about to be deleted with all it has (inside the deletion's transaction): bookings tells
# the organizations that its objects are shared with of the bookings that go. Arguments: organization.
organization_deleting = Signal()
