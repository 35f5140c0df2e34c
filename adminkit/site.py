"""The organization website: the Django admin at /admin/, scoped to the administrator's organization.

Who may enter: a Django superuser (the service's own support, who sees every organization) or a member
with the role `admin` of at least one organization (no `is_staff` needed). An administrator works in one
organization at a time, the "current" one, kept in the session and chosen on the index page when they
administer several.

Every model admin of this site derives from `OrganizationScopedAdmin`, which does the scoping.
"""

import zoneinfo
from functools import wraps

from django.contrib import admin, messages
from django.contrib.admin.utils import NotRelationField, get_fields_from_path, lookup_spawns_duplicates
from django.core.exceptions import FieldDoesNotExist, PermissionDenied, ValidationError
from django.db.models import Q, Value
from django.db.models.base import ModelBase
from django.db.models.functions import Lower
from django.db.models.lookups import Contains
from django.forms import ModelChoiceField
from django.http import HttpResponsePermanentRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, re_path, reverse
from django.utils import timezone
from django.utils.text import smart_split, unescape_string_literal
from django.utils.translation import gettext_lazy as _

from accounts.forms import MemberLoginForm
from accounts.models import Organization, Role
from apicore import tenancy

CURRENT_ORGANIZATION_SESSION_KEY = "admin_organization_id"
# Model pages that moved from accounts to another app (issue 17), by model name: the app they are in now.
MOVED_FROM_ACCOUNTS = {"apitoken": "main_api", "appclient": "mobile_api", "blockedaddress": "mobile_api"}


def administered_organizations(user) -> list[Organization]:
    """The organizations in which the login is a member with the role `admin`."""
    if not user.is_authenticated:
        return []
    return list(Organization.objects.filter(members__user=user, members__roles__role=Role.ADMIN).distinct())


def may_enter(user, organizations: list[Organization]) -> bool:
    return user.is_active and not user.locked_login and (user.is_superuser or bool(organizations))


class OrganizationAdminLoginForm(MemberLoginForm):
    """The member website's login (the shared limit of failed logins included) for the admin, with the
    admin's own entry rule instead of `is_staff`: superusers and organization administrators."""

    required_css_class = "required"
    error_messages = {
        **MemberLoginForm.error_messages,
        "invalid_login": _(
            "Please enter the correct %(username)s and password of an organization administrator. "
            "Note that both fields may be case-sensitive."
        ),
    }

    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)  # the is_active check
        if not may_enter(user, administered_organizations(user)):
            raise ValidationError(
                self.error_messages["invalid_login"],
                code="invalid_login",
                params={"username": self.username_field.verbose_name},
            )


class OrganizationAdminSite(admin.AdminSite):
    site_header = _("Flying club administration")
    site_title = _("Flying club administration")
    index_title = _("Organization website")
    index_template = "admin/organization_index.html"
    login_form = OrganizationAdminLoginForm
    # django-oauth-toolkit registers its own pages (applications, grants, access and refresh tokens) on the
    # default site. Tokens are made, changed and deleted on our API token pages (an ApiToken owns its OAuth
    # application); the library's pages let support edit those internals, and its "View on site" reverses an
    # address that we do not serve (a 500). So this site leaves the library's models out.
    hidden_apps = frozenset({"oauth2_provider"})

    def register(self, model_or_iterable, admin_class=None, **options):
        models = [model_or_iterable] if isinstance(model_or_iterable, ModelBase) else list(model_or_iterable)
        kept = [model for model in models if model._meta.app_label not in self.hidden_apps]
        if kept:
            super().register(kept, admin_class, **options)

    def login(self, request, extra_context=None):
        """Django's admin login with our form; a form refused by a limit of failed logins (the username's or
        the client address's: the form's `retry_after`) comes back with status 429 and `Retry-After`, as on the
        member website's /login (docs/decisions.md §3.20)."""
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        retry_after = getattr(form, "retry_after", None)
        if retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response

    # --- who is here, and in which organization ------------------------------------------------------------

    def administered_organizations(self, request) -> list[Organization]:
        if not hasattr(request, "_administered_organizations"):
            request._administered_organizations = administered_organizations(request.user)
        return request._administered_organizations

    def has_permission(self, request) -> bool:
        return request.user.is_authenticated and may_enter(request.user, self.administered_organizations(request))

    def current_organization(self, request) -> Organization | None:
        """The organization the administrator works in; None for a superuser, who sees every organization."""
        if request.user.is_superuser:
            return None
        organizations = self.administered_organizations(request)
        if not organizations or not self.has_permission(request):
            # Never answer None ("everything") for anybody but a superuser.
            raise PermissionDenied
        chosen = request.session.get(CURRENT_ORGANIZATION_SESSION_KEY)
        return next((org for org in organizations if org.pk == chosen), organizations[0])

    def time_zone(self, request) -> zoneinfo.ZoneInfo | None:
        """The current organization's time zone; None for a superuser (UTC) or a visitor not let in."""
        if not request.user.is_authenticated or request.user.is_superuser or not self.has_permission(request):
            return None
        try:
            return zoneinfo.ZoneInfo(self.current_organization(request).timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return None

    def admin_view(self, view, cacheable=False):
        """Every page in the organization's time zone: its times (API tokens' creation, the history of
        changes) are the club's local times, as the organization's settings name it."""
        inner = super().admin_view(view, cacheable)

        @wraps(inner)
        def in_organization_time(request, *args, **kwargs):
            zone = self.time_zone(request)
            if zone is None:
                return inner(request, *args, **kwargs)
            with timezone.override(zone):
                response = inner(request, *args, **kwargs)
                if callable(getattr(response, "render", None)) and not getattr(response, "is_rendered", True):
                    response.render()  # now, while the zone is active (a TemplateResponse renders later)
                return response

        return in_organization_time

    # --- pages ----------------------------------------------------------------------------------------------

    def each_context(self, request):
        context = super().each_context(request)
        if context["has_permission"]:
            current = self.current_organization(request)
            context["current_organization"] = current
            context["administered_organizations"] = (
                [] if request.user.is_superuser else self.administered_organizations(request)
            )
            if current is not None:
                context["site_header"] = f"{current.name} · {self.site_header}"
        return context

    def get_urls(self):
        urls = [
            path(
                "organization/switch/",
                self.admin_view(self.switch_organization),
                name="switch_organization",
            ),
            # Pages of models that left accounts for the API they serve: bookmarks and links keep working.
            re_path(
                rf"^accounts/(?P<model>{'|'.join(MOVED_FROM_ACCOUNTS)})/(?P<rest>.*)$",
                self.moved_page,
            ),
        ]
        return urls + super().get_urls()

    def moved_page(self, request, model: str, rest: str):
        query = request.META.get("QUERY_STRING", "")
        target = f"{reverse('admin:index')}{MOVED_FROM_ACCOUNTS[model]}/{model}/{rest}"
        return HttpResponsePermanentRedirect(f"{target}?{query}" if query else target)

    def switch_organization(self, request):
        """Choose the current organization among those the administrator administers."""
        if request.user.is_superuser:
            messages.info(request, _("Superusers see every organization; there is nothing to switch."))
            return redirect("admin:index")
        organizations = self.administered_organizations(request)
        if request.method == "POST":
            wanted = request.POST.get("organization", "")
            organization = next((org for org in organizations if str(org.pk) == wanted), None)
            if organization is None:
                raise PermissionDenied
            request.session[CURRENT_ORGANIZATION_SESSION_KEY] = organization.pk
            messages.success(request, _("You now administer %(name)s.") % {"name": organization.name})
            # Back to the index: the page the administrator came from may show the other organization's data.
            return redirect("admin:index")
        context = {**self.each_context(request), "title": _("Switch organization")}
        request.current_app = self.name
        return TemplateResponse(request, "admin/switch_organization.html", context)

    def get_app_list(self, request, app_label=None):
        """The index and side bar, with model admins that name a `section` gathered under it.

        `section = ("System settings", "Authorization")` puts a model under "System settings" as
        "Authorization". An app's own page (app_label given) still lists all of its models.
        """
        app_list = super().get_app_list(request, app_label)
        if app_label is not None:
            return app_list
        sections: dict[str, dict] = {}
        for app in app_list:
            kept = []
            for entry in app["models"]:
                section = getattr(self._registry[entry["model"]], "section", None)
                if section is None:
                    kept.append(entry)
                    continue
                section_name, entry_name = section
                group = sections.setdefault(
                    section_name,
                    {
                        "name": section_name,
                        "app_label": f"section-{len(sections)}",
                        "app_url": entry["admin_url"],
                        "has_module_perms": True,
                        "models": [],
                    },
                )
                group["models"].append({**entry, "name": entry_name})
            app["models"] = kept
        return [app for app in app_list if app["models"]] + list(sections.values())


# Django's default site is an OrganizationAdminSite (adminkit.apps), so `admin.site`, `@admin.register`
# and the /admin/ line of config/urls.py all mean this site.
site = admin.site


class OrganizationScopedAdmin(admin.ModelAdmin):
    """A model admin that shows and changes only the current organization's rows.

    Whose rows are whose is the model's tenancy declaration (`tenant_path`, apicore.tenancy), the same one the
    APIs scope by; no admin declares it again.
    - Lists and object pages are limited to the current organization's own rows (another's row is "not
      found"); a table of the whole service (`tenant_path = None`) is support's unless the page says otherwise.
    - On create the organization is set to the current one; its field is hidden from administrators.
    - Choices of every relation field of the page's forms and inlines, declared or made from the model, and
      autocomplete results offer only the current organization's rows by the related model's tenancy (for a
      login: the logins that are members of the organization). A page names its exceptions:
      `shared_choices`, fields that also offer rows shared with the organization (apicore.tenancy.visible:
      objects_app's one visibility rule); `current_choice_kept`, fields whose row's current value stays a choice
      though another organization's (the booker of a shared object); `unscoped_choices`, {field: why} for a
      rule of the page's own.
    - has_*_permission follow the site's rule, not Django's model permissions.
    Superusers see and choose everything.
    """

    shared_choices: tuple[str, ...] = ()
    current_choice_kept: tuple[str, ...] = ()
    unscoped_choices: dict[str, str] = {}

    # --- the rule ---------------------------------------------------------------------------------------

    def current_organization(self, request) -> Organization | None:
        return self.admin_site.current_organization(request)

    def has_organization_permission(self, request, obj=None) -> bool:
        if not self.admin_site.has_permission(request):
            return False
        if request.user.is_superuser:
            return True
        if tenancy.is_service_wide(self.model):
            return False  # the service's own rows are support's (a page may let administrators look)
        if obj is None:
            return True
        return tenancy.organization_ids(obj) == {self.current_organization(request).pk}

    def has_module_permission(self, request):
        return self.has_organization_permission(request)

    def has_view_permission(self, request, obj=None):
        return self.has_organization_permission(request, obj)

    def has_add_permission(self, request):
        return self.has_organization_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.has_organization_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.has_organization_permission(request, obj)

    # --- rows ---------------------------------------------------------------------------------------------

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = self.search_results(request, queryset, search_term)
        if request.resolver_match is not None and request.resolver_match.url_name == "autocomplete":
            # The choices of a relation field typed into: the current organization's rows, by the source
            # page's rule for the field (the rows come from this page's own scoped list already).
            source = self._autocomplete_source(request)
            name = request.GET.get("field_name", "")
            if source is None or name not in source.unscoped_choices:
                shared = source is not None and name in source.shared_choices
                queryset = scoped_choices(queryset, self.current_organization(request), shared=shared)
        return queryset, may_have_duplicates

    def _autocomplete_source(self, request):
        for model, model_admin in self.admin_site._registry.items():
            opts = model._meta
            if (opts.app_label, opts.model_name) == (request.GET.get("app_label"), request.GET.get("model_name")):
                return model_admin if isinstance(model_admin, OrganizationScopedAdmin) else None
        return None

    def search_results(self, request, queryset, search_term):
        """Django's search (every word in one of the fields), with letter case folded alike on every database.

        Django looks for `field__icontains=word`, which SQLite runs as LIKE: it folds ASCII letters only, so
        "åsa" did not find "Åsa". Here each word is looked for in LOWER(field) as LOWER(word); SQLite's LOWER
        is Unicode's (apicore.database), PostgreSQL's is its own, and both sides use the same one. Fields
        written with ^, = or @, or with a lookup of their own, keep Django's meaning.
        """
        fields = self.get_search_fields(request)
        if not search_term or not fields or not all(self._plain_search_field(name) for name in fields):
            return super().get_search_results(request, queryset, search_term)
        words = []
        for word in smart_split(search_term):
            if word.startswith(('"', "'")) and word[0] == word[-1]:
                word = unescape_string_literal(word)
            words.append(Q.create([Contains(Lower(name), Lower(Value(word))) for name in fields], connector=Q.OR))
        queryset = queryset.filter(Q.create(words))
        return queryset, any(lookup_spawns_duplicates(self.opts, name) for name in fields)

    def _plain_search_field(self, name) -> bool:
        if not isinstance(name, str) or name[:1] in ("^", "=", "@"):
            return False
        try:
            return not get_fields_from_path(self.model, name)[-1].is_relation
        except (FieldDoesNotExist, NotRelationField):
            return False  # a name with a lookup

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        organization = self.current_organization(request)
        if organization is None:
            return queryset
        return tenancy.owned(queryset, organization)

    # --- the organization field ---------------------------------------------------------------------------

    @property
    def own_organization_field(self) -> str | None:
        """The model's own organization field, when its tenant path is one (set on create, hidden from
        administrators)."""
        paths = tenancy.tenant_paths(self.model)
        if len(paths) != 1 or "__" in paths[0] or paths[0] == "pk":
            return None
        return paths[0]

    def _hides_organization(self, request) -> bool:
        return self.own_organization_field is not None and not request.user.is_superuser

    def _without_organization(self, entries):
        """Entries of fields, list_display or list_filter without the organization (a line may be a tuple)."""
        hidden = self.own_organization_field
        result = []
        for entry in entries:
            if isinstance(entry, list | tuple) and all(isinstance(name, str) for name in entry):
                entry = tuple(name for name in entry if name != hidden)  # a form line of several fields
                if not entry:
                    continue
            elif entry == hidden or (isinstance(entry, list | tuple) and entry[0] == hidden):
                continue  # the field, or a (field, filter class) pair
            result.append(entry)
        return result

    def get_fieldsets(self, request, obj=None):
        return self.without_organization_field(request, super().get_fieldsets(request, obj))

    def without_organization_field(self, request, fieldsets):
        """Fieldsets as an administrator gets them (for subclasses that build their own)."""
        if not self._hides_organization(request):
            return fieldsets
        return [
            (title, {**options, "fields": self._without_organization(options["fields"])})
            for title, options in fieldsets
        ]

    def get_list_display(self, request):
        names = super().get_list_display(request)
        return self._without_organization(names) if self._hides_organization(request) else names

    def get_list_filter(self, request):
        filters = super().get_list_filter(request)
        if request.user.is_superuser:
            return filters
        if self._hides_organization(request):
            filters = self._without_organization(filters)
        # A plain relation filter would list every organization's rows; offer only those in the list.
        return [(f, admin.RelatedOnlyFieldListFilter) if self._is_relation(f) else f for f in filters]

    def _is_relation(self, name) -> bool:
        if not isinstance(name, str) or "__" in name:
            return False
        try:
            return self.opts.get_field(name).is_relation
        except FieldDoesNotExist:
            return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        return organization_form(form, self, self.current_organization(request), self.own_organization_field)

    def save_model(self, request, obj, form, change):
        field = self.own_organization_field
        organization = self.current_organization(request)
        if not change and field is not None and organization is not None:
            setattr(obj, field, organization)
        super().save_model(request, obj, form, change)


class SupportOnlyAdmin(OrganizationScopedAdmin):
    """Pages of the service's own support (superusers): organization administrators neither see them in the
    index nor reach them (403). Subclasses narrow a permission further by calling `support(request)`."""

    def support(self, request) -> bool:
        return request.user.is_superuser and self.admin_site.has_permission(request)

    def has_module_permission(self, request):
        return self.support(request)

    def has_view_permission(self, request, obj=None):
        return self.support(request)

    def has_add_permission(self, request):
        return self.support(request)

    def has_change_permission(self, request, obj=None):
        return self.support(request)

    def has_delete_permission(self, request, obj=None):
        return self.support(request)


def scoped_choices(queryset, organization, *, shared: bool = False, current=None):
    """A relation field's choices for an administrator of `organization` (None: a superuser, every row): the
    organization's own rows by the model's tenancy, with `shared` those shared with it too; `current` (a
    primary key) stays a choice. A table of the whole service is offered whole."""
    model = queryset.model
    if organization is None or tenancy.is_service_wide(model):
        return queryset
    rows = tenancy.visible(queryset, organization) if shared else tenancy.owned(queryset, organization)
    if current is not None:
        rows = rows | queryset.filter(pk=current)
    if any(tenancy.spans_many(model, path) for path in tenancy.tenant_paths(model)):
        rows = rows.distinct()
    return rows


def organization_form(form, rules, organization: Organization | None, organization_field: str | None = None):
    """The form class of a page or inline for an administrator of `organization` (None: a superuser, the form
    as it is): its relation fields' choices scoped by `rules` (the page's or inline's shared_choices,
    current_choice_kept, unscoped_choices) and a new row's organization field set to it."""
    if organization is None:
        return form
    attributes = {
        "scoped": organization,
        "organization_name": organization_field,
        "shared_choices": frozenset(rules.shared_choices),
        "current_choice_kept": frozenset(rules.current_choice_kept),
        "unscoped_choices": frozenset(rules.unscoped_choices),
    }
    return type(form.__name__, (_OrganizationForm, form), attributes)


class _OrganizationForm:
    """Scopes every model choice field of the form (however it was made: from the model, declared, or set in
    the form's own __init__) to the current organization, and sets a new row's organization before validation,
    so that uniqueness within it is checked too."""

    scoped: Organization
    organization_name: str | None
    shared_choices: frozenset = frozenset()
    current_choice_kept: frozenset = frozenset()
    unscoped_choices: frozenset = frozenset()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.organization_name is not None and self.instance._state.adding:
            setattr(self.instance, self.organization_name, self.scoped)
        for name, field in self.fields.items():
            if name in self.unscoped_choices or not isinstance(field, ModelChoiceField):
                continue
            current = None
            if name in self.current_choice_kept and not self.instance._state.adding:
                current = getattr(self.instance, f"{name}_id", None)
            field.queryset = scoped_choices(
                field.queryset, self.scoped, shared=name in self.shared_choices, current=current
            )

    def _get_validation_exclusions(self):
        exclusions = super()._get_validation_exclusions()
        if self.organization_name is not None:
            exclusions.discard(self.organization_name)
        return exclusions
