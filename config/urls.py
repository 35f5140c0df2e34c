from django.contrib import admin
from django.urls import include, path

from apicore.openapi import document_routes
from apicore.routes import catch_all
from main_api.flavour_v5 import MAIN_V5
from main_api.urls import main_v5
from mobile_api.flavour_v5 import MOBILE_V5
from mobile_api.urls import mobile_v5

from . import pages

urlpatterns = [
    path("main/v5/", include((main_v5, "main_v5"))),
    path("mobile/v5/", include((mobile_v5, "mobile_v5"))),
    *document_routes(
        "main/v5/",
        namespace="main_v5",
        flavour=MAIN_V5,
        title="Main API v5",
        version="5",
        description="Generated from the endpoints' declarations. Replies are JSON; errors are Problem Details "
        "(RFC 9457) with the API's error code in `code`.",
    ),
    *document_routes(
        "mobile/v5/",
        namespace="mobile_v5",
        flavour=MOBILE_V5,
        title="Mobile API v5",
        version="5",
        description="Generated from the endpoints' declarations. An app acts for one logged-in member (OAuth 2.1, "
        "authorization code with PKCE). Replies are JSON; errors are Problem Details (RFC 9457) with the API's "
        "error code in `code`, except on the /oauth endpoints (OAuth's form).",
    ),
    catch_all("main/"),
    catch_all("mobile/"),
    path("admin/", admin.site.urls),
    path("errors/<slug:kind>", pages.error_kind, name="error-kind"),
    path("docs/main-api-v5-migration", pages.migration_guide, name="migration-guide"),
    path("", include("mobile_api.urls_consent")),
    path("", include("member_site.urls")),
    path("health", pages.health, name="health"),
    path("ready", pages.ready, name="ready"),
    path("", pages.home, name="home"),
]

# Under an API's address, whatever Django itself refuses is answered in Problem Details too (config.pages).
handler400 = "config.pages.bad_request"
handler403 = "config.pages.permission_denied"
handler404 = "config.pages.page_not_found"
handler500 = "config.pages.server_error"
