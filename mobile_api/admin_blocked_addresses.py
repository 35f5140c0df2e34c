"""The Mobile API's blocked addresses on the organization website (issue 10): support only.

Support (superusers) adds an IP address or a network (CIDR) that the Mobile API refuses with 403 10003. A
change applies to the next call (mobile_api.blocked_addresses drops its cached list on save and delete).
Organization administrators do not see these pages at all.
"""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from adminkit.site import SupportOnlyAdmin
from mobile_api.blocked_addresses import parse_network
from mobile_api.models import BlockedAddress


class BlockedAddressForm(forms.ModelForm):
    class Meta:
        model = BlockedAddress
        fields = ["network", "reason"]

    def clean_network(self) -> str:
        """An address or a network, stored in its normal form (203.0.113.7, 198.51.100.0/24, 2001:db8::/32)."""
        text = self.cleaned_data["network"].strip()
        try:
            network = parse_network(text)
        except ValueError:
            raise forms.ValidationError(
                gettext(
                    "Enter an IP address such as 203.0.113.7 or a network such as 198.51.100.0/24 "
                    "(IPv6 too: 2001:db8::/32)."
                ),
                code="invalid",
            ) from None
        single = network.num_addresses == 1 and "/" not in text
        normal = str(network.network_address) if single else str(network)
        if BlockedAddress.objects.filter(network=normal).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(gettext("This address or network is already blocked."), code="unique")
        return normal


@admin.register(BlockedAddress)
class BlockedAddressAdmin(SupportOnlyAdmin):
    """Support's page; the rows belong to no organization, so only superusers get here (has_*_permission)."""

    section = (_("System settings"), _("Blocked addresses"))
    form = BlockedAddressForm
    list_display = ["network", "reason", "created_at"]
    search_fields = ["network", "reason"]
    readonly_fields = ["created_at"]
    fields = ["network", "reason", "created_at"]
