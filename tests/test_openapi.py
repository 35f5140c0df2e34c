"""/main/v5/openapi.json and /main/v5/docs: a valid OpenAPI 3.1 document that names every route, method,
parameter, field, block, body and error code the endpoints declare, that real replies conform to, and a docs
page that loads nothing from another host."""

import copy
import datetime as dt
import re
from html.parser import HTMLParser
from urllib.parse import quote, urlsplit

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, reverse
from django.urls import resolve as url_resolve
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from accounts.models import ExpiryDateType, UserExpiryDate
from apicore import clock
from apicore.openapi import namespace_resolver, takes_a_value
from tests.conftest import BASE, basic
from tests.factories import MemberFactory, MembershipFactory, UserGroupFactory
from tests.factories_operations import (
    BookingFactory,
    FlightApprovalFactory,
    FlightFactory,
    FlightTypeFactory,
    RemarkEventFactory,
    RemarkFactory,
    TransactionFactory,
)

DOCUMENT_URL = f"{BASE}/openapi.json"
DOCS_URL = f"{BASE}/docs"
ROUTE_PARAMETER = re.compile(r"<(?:[^>:]+:)?(\w+)>")


@pytest.fixture(scope="module")
def document():
    response = Client().get(DOCUMENT_URL, secure=True)
    assert response.status_code == 200, response.content
    return response.json()


# --- walking the declarations ------------------------------------------------------------------------------


def api_routes():
    """(OpenAPI path, view class) of every route in the Main v5 namespace, from the URL configuration."""

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                route = ROUTE_PARAMETER.sub(r"{\1}", prefix + str(pattern.pattern)).replace("{pk}", "{id}")
                yield "/" + route, pattern.callback.view_class

    return list(walk(namespace_resolver("main_v5").url_patterns, ""))


def declared_operations():
    """(path, method, Operation) of every declared operation (the token view is OAuth's, not declared)."""
    for path, view_class in api_routes():
        for method, operation in getattr(view_class, "describe", dict)().items():
            yield path, method, view_class, operation


def node_path(ref: str) -> list[str]:
    assert ref.startswith("#/"), ref
    return [part.replace("~1", "/").replace("~0", "~") for part in ref[2:].split("/")]


def deref(document: dict, node: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node_path(node["$ref"]):
            target = target[part]
        node = target
    return node


def properties_of(document: dict, schema: dict) -> dict:
    """The properties of an object schema, through $ref, allOf and anyOf."""
    schema = deref(document, schema)
    found = dict(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key, []):
            found.update(properties_of(document, part))
    return found


def item_schema(document: dict, operation: dict, status: int, reply: str) -> dict:
    envelope = operation["responses"][str(status)]["content"]["application/json"]["schema"]
    data = properties_of(document, envelope)["data"]
    return deref(document, data["items"] if reply == "list" else data)


def missing_from(document: dict) -> list[str]:
    """What the endpoints declare and the document does not say (empty when complete)."""
    missing = []
    paths = document.get("paths", {})
    for path, view_class in api_routes():
        if path not in paths:
            missing.append(f"route {path}")
            continue
        offered = {m.lower() for m in view_class.describe()} if hasattr(view_class, "describe") else {"post"}
        for method in offered - set(paths[path]):
            missing.append(f"method {method.upper()} {path}")
    for path, method, view_class, declared in declared_operations():
        operation = paths.get(path, {}).get(method)
        if operation is None:
            continue
        where = f"{method.upper()} {path}"
        documented = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}
        for name, parameter in declared.parameters.items():
            if not takes_a_value(parameter):
                # Declared but accepting no value: said in the description, not offered as a parameter.
                if name in documented or f"`{name}`" not in operation.get("description", ""):
                    missing.append(f"refused parameter {name} of {where}")
            elif name not in documented:
                missing.append(f"parameter {name} of {where}")
            elif documented[name]["schema"] != parameter.schema:
                missing.append(f"type of parameter {name} of {where}")
        if declared.body is not None:
            content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            body = properties_of(document, content.get("schema", {}))
            missing += [f"body field {name} of {where}" for name in declared.body.fields if name not in body]
        if declared.reply != "empty":
            if str(declared.status) not in operation.get("responses", {}):
                missing.append(f"reply {declared.status} of {where}")
                continue
            item = item_schema(document, operation, declared.status, declared.reply)
            if declared.presenter is None:
                if item != declared.item_schema:
                    missing.append(f"item of {where}")
            else:
                item = properties_of(document, item)
                for kind, names in (("field", declared.presenter.fields), ("block", declared.presenter.blocks)):
                    missing += [f"{kind} {name} of {where}" for name in names if name not in item]
        for error in declared.errors:
            status = str(view_class.flavour.error_status(error))
            reply = operation.get("responses", {}).get(status)
            codes = [] if reply is None else reply["content"]["application/problem+json"]["schema"]["properties"]
            if not codes or error.code not in codes["code"]["enum"]:
                missing.append(f"error {error.code} ({status}) of {where}")
    return missing


# --- (a) valid OpenAPI 3.1 ---------------------------------------------------------------------------------


def test_the_document_is_valid_openapi_3_1(document):
    validate_spec(document)  # raises on any fault; detects 3.1 from the `openapi` field
    assert document["openapi"].startswith("3.1")
    assert document["servers"] == [{"url": BASE}]


def test_the_document_is_served_as_json_without_a_token():
    response = Client().get(DOCUMENT_URL, secure=True)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")


def test_the_document_needs_https_as_the_api_does():
    response = Client().get(DOCUMENT_URL)

    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"


def test_the_security_scheme_is_oauth_client_credentials_at_the_token_url(document):
    schemes = document["components"]["securitySchemes"]
    flow = schemes["oauth2"]["flows"]["clientCredentials"]

    assert schemes["oauth2"]["type"] == "oauth2"
    assert flow["tokenUrl"] == reverse("main_v5:oauth-token") == "/main/v5/oauth/token"
    for path, method, _, _ in declared_operations():
        assert document["paths"][path][method]["security"] == [{"oauth2": []}], (method, path)


def test_every_operation_states_its_right(document):
    for path, method, _, declared in declared_operations():
        operation = document["paths"][path][method]
        assert operation["x-right"] == {"module": declared.module, "right": declared.right}, (method, path)


# --- (b) completeness --------------------------------------------------------------------------------------


def test_the_document_names_every_route_method_parameter_field_block_body_and_error(document):
    assert list(declared_operations()), "no declared operations found: the walk itself is broken"

    assert missing_from(document) == []


def _first(document, predicate):
    for path, method, _, declared in declared_operations():
        if predicate(declared):
            return path, method, declared
    raise AssertionError("no operation of that kind")


def test_a_missing_route_or_method_is_found(document):
    path, method, _ = _first(document, lambda op: True)
    without_route = copy.deepcopy(document)
    del without_route["paths"][path]
    without_method = copy.deepcopy(document)
    del without_method["paths"][path][method]

    assert f"route {path}" in missing_from(without_route)
    assert f"method {method.upper()} {path}" in missing_from(without_method)


def test_a_missing_parameter_is_found(document):
    path, method, _ = _first(document, lambda op: "include" in op.parameters and op.parameters["include"].choices)
    changed = copy.deepcopy(document)
    operation = changed["paths"][path][method]
    operation["parameters"] = [p for p in operation["parameters"] if p["name"] != "include"]

    assert f"parameter include of {method.upper()} {path}" in missing_from(changed)


def test_a_parameter_that_takes_no_value_is_described_not_offered(document):
    """`include` where an operation has no blocks: every value answers 400 10005, so it is no parameter a
    client (or schemathesis) may fill in; the description says so."""
    path, method, _ = _first(document, lambda op: "include" in op.parameters and not op.parameters["include"].choices)
    operation = document["paths"][path][method]

    assert "include" not in {p["name"] for p in operation["parameters"]}
    assert "`include`: this operation offers none; any value answers 400 (10005)." in operation["description"]
    offered = copy.deepcopy(document)
    offered["paths"][path][method]["parameters"].append(
        {"name": "include", "in": "query", "required": False, "schema": {"not": {}}}
    )
    assert f"refused parameter include of {method.upper()} {path}" in missing_from(offered)


def test_a_missing_field_or_block_is_found(document):
    path, method, declared = _first(document, lambda op: op.presenter is not None and op.presenter.blocks)
    field, block = next(iter(declared.presenter.fields)), next(iter(declared.presenter.blocks))
    changed = copy.deepcopy(document)
    item = item_schema(changed, changed["paths"][path][method], declared.status, declared.reply)
    del item["properties"][field]
    del item["properties"][block]

    found = missing_from(changed)

    assert f"field {field} of {method.upper()} {path}" in found
    assert f"block {block} of {method.upper()} {path}" in found


def test_a_missing_error_code_is_found(document):
    path, method, _ = _first(document, lambda op: op.module is not None)
    changed = copy.deepcopy(document)
    problem = changed["paths"][path][method]["responses"]["403"]["content"]["application/problem+json"]
    problem["schema"]["properties"]["code"]["enum"].remove(10002)

    assert f"error 10002 (403) of {method.upper()} {path}" in missing_from(changed)


def test_bodies_state_types_required_fields_and_refuse_other_names(document):
    schema = document["components"]["schemas"]["UserCreate"]

    assert schema["additionalProperties"] is False
    assert {"username", "first_name", "last_name", "membership_id"} <= set(schema["required"])
    assert schema["properties"]["membership_id"]["type"] == "integer"
    assert schema["properties"]["address"]["properties"]["city"]["maxLength"] == 100


def test_a_created_item_links_to_the_operations_on_it(document):
    links = document["paths"]["/users"]["post"]["responses"]["201"]["links"]
    operation_ids = {
        op["operationId"]: (method, path) for path, item in document["paths"].items() for method, op in item.items()
    }

    assert {operation_ids[link["operationId"]] for link in links.values()} == {
        *((method, "/users/{id}") for method in document["paths"]["/users/{id}"]),
        ("get", "/users/{id}/expiry-dates"),
        ("get", "/users/{id}/approved-flight-types"),
    }
    assert all(link["parameters"] == {"id": "$response.body#/data/id"} for link in links.values())


def test_a_put_item_links_to_the_other_operations_on_its_address(document):
    """So that a stateful tester deletes what it has just set, instead of guessing ids that are not there."""
    path = "/users/{id}/expiry-dates/{type_id}"
    links = document["paths"][path]["put"]["responses"]["200"]["links"]

    assert [link["operationId"] for link in links.values()] == [document["paths"][path]["delete"]["operationId"]]
    assert all(
        link["parameters"] == {"id": "$request.path.id", "type_id": "$request.path.type_id"} for link in links.values()
    )


def test_the_token_endpoint_is_documented_in_oauth_form(document):
    operation = document["paths"]["/oauth/token"]["post"]

    assert set(document["paths"]["/oauth/token"]) == {"post"}
    assert list(operation["requestBody"]["content"]) == ["application/x-www-form-urlencoded"]
    for status in ("400", "401"):
        error = deref(document, operation["responses"][status]["content"]["application/json"]["schema"])
        assert error["required"] == ["error", "error_description"]
    assert "application/problem+json" in operation["responses"]["429"]["content"]


# --- (c) real replies conform ------------------------------------------------------------------------------


class Conformance:
    """Checks replies against the document: status documented for the operation, content type, body schema
    (JSON Schema 2020-12, $refs resolved inside the document) and the documented required headers."""

    def __init__(self, document: dict):
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource("urn:openapi", resource)
        self.checked: set[tuple[str, str, int]] = set()

    def check(self, method: str, path: str, response, status: int) -> None:
        """The reply has the expected `status`, and conforms to what the document says of it."""
        assert response.status_code == status, (method, path, response.content)
        method = method.lower()
        status = str(response.status_code)
        assert path in self.document["paths"], path
        operation = self.document["paths"][path][method]
        assert status in operation["responses"], (method, path, status, response.content)
        pointer = f"/paths/{quote(path.replace('~', '~0').replace('/', '~1'))}/{method}/responses/{status}"
        reply = deref(self.document, operation["responses"][status])
        content = reply.get("content")
        if not content:
            assert response.content == b"", response.content
        else:
            media_type = response["Content-Type"].split(";")[0]
            assert media_type in content, (method, path, status, media_type)
            if media_type.endswith("json"):
                self.validate(f"{pointer}/content/{quote(media_type.replace('/', '~1'))}/schema", response.json())
            else:  # a picture: the bytes themselves, of the documented media type
                assert response.content, (method, path, status)
        for name, header in reply.get("headers", {}).items():
            header = deref(self.document, header)
            if header.get("required"):
                assert response.has_header(name), (method, path, status, name)
            if response.has_header(name):
                value = response[name]
                self.validate_value(
                    header["schema"], int(value) if header["schema"].get("type") == "integer" else value
                )
        self.checked.add((method, path, response.status_code))

    def validate(self, pointer: str, instance) -> None:
        validator = Draft202012Validator(
            {"$ref": f"urn:openapi#{pointer}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        errors = sorted(validator.iter_errors(instance), key=str)
        assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])

    def validate_value(self, schema: dict, value) -> None:
        Draft202012Validator(schema, registry=self.registry).validate(value)

    def check_method_not_allowed(self, method: str, path: str, response) -> None:
        """405 for a method the document does not list; `Allow` lists the documented ones."""
        assert response.status_code == 405
        assert method.lower() not in self.document["paths"][path]
        assert response["Content-Type"] == "application/problem+json"
        self.validate("/components/schemas/Problem", response.json())
        allowed = {name.strip().lower() for name in response["Allow"].split(",")} - {"head", "options"}
        assert allowed == set(self.document["paths"][path]), (path, response["Allow"])


@pytest.fixture
def world(org, admin):
    """One of each thing the endpoints show, with the admin as a member in a group and with a date."""
    membership = MembershipFactory(organization=org, name="Senior")
    group = UserGroupFactory(organization=org, name="Instructors")
    member = MemberFactory(organization=org, membership=membership, user__first_name="Sven")
    member.user_groups.add(group)
    medical = ExpiryDateType.objects.create(organization=org, name="Medical")
    UserExpiryDate.objects.create(member=member, type=medical, expiry_date=dt.date(2027, 5, 1))
    flight = FlightFactory(organization=org, pilot=member)
    remark = RemarkFactory(organization=org, object=flight.object)
    RemarkEventFactory(remark=remark)
    booking = BookingFactory(organization=org, object=flight.object, user=member.user)
    approval = FlightApprovalFactory(organization=org, member=member, object=flight.object)
    approval.flight_types.add(FlightTypeFactory(organization=org))
    transaction = TransactionFactory(organization=org, user=member.user, flightlog=flight)
    return {
        "membership": membership,
        "group": group,
        "member": member,
        "medical": medical,
        "flight": flight,
        "object": flight.object,
        "remark": remark,
        "booking": booking,
        "transaction": transaction,
    }


def blocks_of(view_path: str) -> str:
    view_class = url_resolve(f"{BASE}{view_path}").func.view_class
    return ",".join(view_class.presenter_class.blocks)


def test_real_replies_of_every_operation_conform_to_the_document(document, api, world):
    conformance = Conformance(document)
    user_id, group_id = world["member"].user_id, world["group"].pk
    membership_id, type_id = world["membership"].pk, world["medical"].pk

    calls = [
        ("GET", "/token", "/token", {}),
        ("GET", "/organization", "/organization", {}),
        ("GET", "/memberships", f"/memberships?include={blocks_of('/memberships')}&include_total=true", {}),
        ("GET", "/memberships/{id}", f"/memberships/{membership_id}?include={blocks_of('/memberships')}", {}),
        ("GET", "/user-groups", f"/user-groups?include={blocks_of('/user-groups')}", {}),
        ("GET", "/user-groups/{id}", f"/user-groups/{group_id}?include={blocks_of('/user-groups')}", {}),
        ("GET", "/expiry-date-types", "/expiry-date-types?limit=1", {}),
        ("GET", "/expiry-date-types/{id}", f"/expiry-date-types/{type_id}", {}),
        ("PATCH", "/expiry-date-types/{id}", f"/expiry-date-types/{type_id}", {"json": {"image_required": True}}),
        ("GET", "/expiry-dates", "/expiry-dates?expired=false", {}),
        ("GET", "/users/{id}/expiry-dates", f"/users/{user_id}/expiry-dates", {}),
        (
            "PUT",
            "/users/{id}/expiry-dates/{type_id}",
            f"/users/{user_id}/expiry-dates/{type_id}",
            {"json": {"expiry_date": "2028-01-31"}},
        ),
        ("DELETE", "/users/{id}/expiry-dates/{type_id}", f"/users/{user_id}/expiry-dates/{type_id}", {}),
        ("GET", "/users", f"/users?include={blocks_of('/users')}&include_total=true", {}),
        ("GET", "/users/{id}", f"/users/{user_id}?include={blocks_of('/users')}", {}),
        ("PATCH", "/users/{id}", f"/users/{user_id}?include=email", {"json": {"misc_info": None}}),
        ("GET", "/objects", f"/objects?include={blocks_of('/objects')}&include_total=true", {}),
        ("GET", "/objects/{id}", f"/objects/{world['object'].pk}?include={blocks_of('/objects')}", {}),
        ("GET", "/remarks", "/remarks?include_total=true", {}),
        ("GET", "/remarks/{id}", f"/remarks/{world['remark'].pk}", {}),
        ("GET", "/bookings", "/bookings?include_total=true", {}),
        ("GET", "/bookings/{id}", f"/bookings/{world['booking'].pk}", {}),
        ("GET", "/flightlogs", "/flightlogs?include_total=true", {}),
        ("GET", "/flightlogs/{id}", f"/flightlogs/{world['flight'].pk}", {}),
        ("GET", "/flight-types", "/flight-types", {}),
        ("GET", "/users/{id}/approved-flight-types", f"/users/{user_id}/approved-flight-types", {}),
        ("GET", "/transactions", f"/transactions?include={blocks_of('/transactions')}&include_total=true", {}),
        (
            "GET",
            "/transactions/{id}",
            f"/transactions/{world['transaction'].pk}?include={blocks_of('/transactions')}",
            {},
        ),
        (
            "POST",
            "/transactions",
            "/transactions?include=account_rows",
            {"json": {"user_id": user_id, "date": "2026-01-02", "amount": 99.5, "comment": "Payment"}},
        ),
    ]
    login_check = api.post("/login-checks", {"username": "nobody", "password": "wrong"})
    conformance.check("POST", "/login-checks", login_check, 200)
    for method, template, address, kwargs in calls:
        response = api.call(method, address, **kwargs)
        conformance.check(method, template, response, {"DELETE": 204, "POST": 201}.get(method, 200))

    created_type = api.post("/expiry-date-types", {"name": "Radio", "reminders": {"days_before": 30}})
    conformance.check("POST", "/expiry-date-types", created_type, 201)
    radio = created_type.json()["data"]["id"]
    conformance.check("DELETE", "/expiry-date-types/{id}", api.delete(f"/expiry-date-types/{radio}"), 204)
    created_user = api.post(
        "/users",
        {
            "username": f"{api.token.organization_id}-nora",
            "first_name": "Nora",
            "last_name": "Berg",
            "membership_id": membership_id,
            "email": ["nora@example.com"],
        },
    )
    conformance.check("POST", "/users", created_user, 201)
    conformance.check("DELETE", "/users/{id}", api.delete(f"/users/{created_user.json()['data']['id']}"), 204)
    conformance.check("POST", "/oauth/token", token_request(api, "client_credentials", api.secret), 200)

    documented = {(method, path) for path, item in document["paths"].items() for method in item}
    exercised = {(method, path) for method, path, status in conformance.checked if status < 300}
    assert documented - exercised == set(), "operations without a checked success reply"


def token_request(api, grant_type: str, secret: str):
    return api.client.post(
        f"{BASE}/oauth/token",
        {"grant_type": grant_type},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), secret),
    )


def test_error_replies_conform_to_the_document(document, api, make_api, org, world):
    conformance = Conformance(document)
    user_id, type_id = world["member"].user_id, world["medical"].pk
    ids = {
        "/memberships/": world["membership"].pk,
        "/user-groups/": world["group"].pk,
        "/objects/": world["object"].pk,
        "/remarks/": world["remark"].pk,
        "/bookings/": world["booking"].pk,
        "/flightlogs/": world["flight"].pk,
        "/transactions/": world["transaction"].pk,
    }
    no_rights = make_api(org, rights={})

    for path, method, _, declared in declared_operations():
        if method != "get":
            continue
        # One wrong bearer per operation: more operations than the failed checks an address may make in
        # ten minutes (20), so each starts with a fresh count.
        cache.clear()
        item_id = next((pk for prefix, pk in ids.items() if path.startswith(prefix)), None)
        item_id = item_id or (type_id if path.startswith("/expiry-date-types/") else user_id)
        address = path.format(id=item_id, type_id=type_id)
        conformance.check("GET", path, api.get(f"{address}?no_such_parameter=1"), 400)  # 10007
        conformance.check("GET", path, api.get(address, bearer="wrong"), 401)
        if declared.module is not None:
            conformance.check("GET", path, no_rights.get(address), 403)  # 10002
        if "{id}" in path:
            conformance.check("GET", path, api.get(path.format(id=999_999_999, type_id=type_id)), 404)

    conformance.check("GET", "/users", api.get("/users?limit=0&active=maybe"), 400)  # 10005, two problems
    conformance.check("GET", "/expiry-dates", api.get("/expiry-dates?expiry_date_from=2026-02-30"), 400)  # 10110
    conformance.check("POST", "/users", api.post("/users", {"username": 7, "surprise": 1}), 400)  # 10006, 10007
    conformance.check("POST", "/users", api.post("/users", [1]), 400)  # 10004
    conformance.check("PATCH", "/users/{id}", api.patch(f"/users/{user_id}", {}), 400)  # 10105
    wrong_date = {"access_card": {"expiry_date": "31.12.2027"}}
    conformance.check("PATCH", "/users/{id}", api.patch(f"/users/{user_id}", wrong_date), 400)  # 10110
    conformance.check("DELETE", "/expiry-date-types/{id}", api.delete(f"/expiry-date-types/{type_id}"), 409)  # 10106
    twice = {
        "username": f"{org.pk}-twice",
        "first_name": "A",
        "last_name": "B",
        "membership_id": world["membership"].pk,
    }
    conformance.check("POST", "/users", api.post("/users", twice), 201)
    conformance.check("POST", "/users", api.post("/users", twice), 409)  # 10030
    conformance.check("POST", "/oauth/token", token_request(api, "password", api.secret), 400)
    conformance.check("POST", "/oauth/token", token_request(api, "client_credentials", "wrong"), 401)

    conformance.check_method_not_allowed("DELETE", "/users", api.delete("/users"))
    conformance.check_method_not_allowed("GET", "/oauth/token", api.client.get(f"{BASE}/oauth/token", secure=True))
    conformance.check_method_not_allowed("POST", "/token", api.post("/token", {}))


def test_replies_before_the_view_are_documented_on_every_operation(document):
    """A wrong `Host` (400 10005) and a too long request line (414 10005) can meet any operation, a body over
    1 MiB (413 10004) any operation with a body: the document lists them where schemathesis and clients look."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if path == "/oauth/token":
                continue
            responses, where = operation["responses"], (method, path)
            codes = {
                status: reply["content"]["application/problem+json"]["schema"]["properties"]["code"]["enum"]
                for status, reply in responses.items()
                if status >= "400"
            }
            assert 10005 in codes["400"] and codes["414"] == [10005], where
            if "requestBody" in operation:
                assert codes["413"] == [10004], where
            else:
                assert "413" not in codes, where


def test_a_body_of_another_media_type_is_documented_as_415_on_every_operation_with_a_body(document, mobile_document):
    """Issue 18: a JSON body must come as application/json; the 415 (10004) is listed wherever a body is."""
    for name, doc in (("main", document), ("mobile", mobile_document)):
        for path, item in doc["paths"].items():
            for method, operation in item.items():
                if "requestBody" not in operation or path.startswith("/oauth/"):  # forms, OAuth's errors
                    continue
                assert "415" in operation["responses"], (name, method, path)
                reply = operation["responses"]["415"]["content"]["application/problem+json"]
                assert reply["schema"]["properties"]["code"]["enum"] == [10004], (name, method, path)


def test_a_415_conforms_to_the_document(document, api):
    response = api.call("POST", "/expiry-date-types", data=b'{"name": "Medical"}', content_type="text/plain")

    Conformance(document).check("POST", "/expiry-date-types", response, 415)


def test_replies_before_the_view_conform_to_the_document(document, api):
    conformance = Conformance(document)
    too_large = b'{"name": "' + b"x" * (1024 * 1024) + b'"}'

    conformance.check("GET", "/users", api.get("/users", HTTP_HOST="evil.example"), 400)
    big = api.call("POST", "/expiry-date-types", data=too_large, content_type="application/json")
    conformance.check("POST", "/expiry-date-types", big, 413)
    token = api.client.post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
        HTTP_HOST="evil.example",
    )
    conformance.check("POST", "/oauth/token", token, 400)  # Problem Details, not OAuth's form
    big_form = api.client.post(
        f"{BASE}/oauth/token",
        b"grant_type=client_credentials&scope=" + b"x" * (1024 * 1024),
        content_type="application/x-www-form-urlencoded",
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
    )
    conformance.check("POST", "/oauth/token", big_form, 413)  # OAuth's form


BODIES = [
    # (method, path, body, valid): the document's body schema and the endpoint's validation agree on each.
    ("POST", "/expiry-date-types", {"name": "Radio"}, True),
    ("POST", "/expiry-date-types", {"name": "Night", "booking": {"excluded_object_ids": []}}, True),
    ("POST", "/expiry-date-types", {"name": ""}, False),
    ("POST", "/expiry-date-types", {"name": "x" * 31}, False),
    ("POST", "/expiry-date-types", {"name": 7}, False),
    ("POST", "/expiry-date-types", {"may_never_expire": True}, False),
    ("POST", "/expiry-date-types", {"name": "Sea", "reminders": {"days_before": 366}}, False),
    ("POST", "/expiry-date-types", {"name": "Ice", "booking": {"excluded_object_ids": [0]}}, False),
    ("POST", "/expiry-date-types", {"name": "Fog", "surprise": 1}, False),
    ("POST", "/expiry-date-types", {"name": "Sun", "image_required": 1}, False),
    ("PATCH", "/expiry-date-types/{id}", {"reminders": {"at_login": True}}, True),
    ("PATCH", "/expiry-date-types/{id}", {}, False),
    ("PATCH", "/expiry-date-types/{id}", {"name": "Renamed"}, False),
    ("PATCH", "/users/{id}", {"misc_info": None, "access_card": {"expiry_date": ""}}, True),
    ("PATCH", "/users/{id}", {"last_name_particle": ""}, True),
    ("PATCH", "/users/{id}", {"first_name": ""}, False),
    ("PATCH", "/users/{id}", {"access_card": {"expiry_date": "2026-02-30"}}, False),
    ("PATCH", "/users/{id}", {"active": None}, False),
    ("PATCH", "/users/{id}", {"access_card": {}}, False),  # changes nothing: 10105
    ("PATCH", "/users/{id}", {"access_card": {}, "active": True}, True),
    ("PUT", "/users/{id}/expiry-dates/{type_id}", {"expiry_date": "2027-12-31"}, True),
    ("PUT", "/users/{id}/expiry-dates/{type_id}", {"expiry_date": "31.12.2027"}, False),
    ("PUT", "/users/{id}/expiry-dates/{type_id}", {}, False),
    ("POST", "/login-checks", {"username": "a", "password": "b"}, True),
    ("POST", "/login-checks", {"username": "a"}, False),
    # Rules the document states since issue 18 (item 7): a date after 2999-12-31, control characters and spaces
    # in a username, an amount below a cent or with more than two decimals.
    ("PUT", "/users/{id}/expiry-dates/{type_id}", {"expiry_date": "3000-01-01"}, False),
    ("PUT", "/users/{id}/expiry-dates/{type_id}", {"expiry_date": "2999-12-30"}, True),
    ("POST", "/login-checks", {"username": "1-er\u009aik", "password": "b"}, False),
    ("POST", "/login-checks", {"username": "1-erik\u00a0", "password": "b"}, False),
    ("POST", "/login-checks", {"username": "1-\uff45\uff52\uff49\uff4b", "password": "b"}, True),
    ("POST", "/transactions", {"user_id": 1, "date": "2026-01-01", "amount": 12.345, "comment": "x"}, False),
    (
        "POST",
        "/transactions",
        {
            "user_id": 1,
            "date": "2026-01-01",
            "amount": 12.5,
            "comment": "x",
            "accounting": {"amount": 0.001, "debit_account": "1910", "credit_account": "3010"},
        },
        False,
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "accepted"), BODIES)
def test_documented_bodies_accept_and_refuse_as_the_endpoints_do(document, api, world, method, path, body, accepted):
    schema = document["paths"][path][method.lower()]["requestBody"]["content"]["application/json"]["schema"]
    validator = Draft202012Validator(
        {"$ref": f"urn:openapi#/components/schemas/{schema['$ref'].rsplit('/', 1)[1]}"},
        registry=Conformance(document).registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )
    address = path.format(
        id=world["medical"].pk if "types" in path else world["member"].user_id, type_id=world["medical"].pk
    )

    response = api.call(method, address, json=body)

    assert validator.is_valid(body) is accepted
    # A body the schema accepts is never refused as malformed (a business rule may still answer 409).
    assert (response.status_code != 400) is accepted, response.content


# --- (d) the docs page -------------------------------------------------------------------------------------


class Addresses(HTMLParser):
    """Every src and href of a page, and the text of its inline scripts."""

    def __init__(self):
        super().__init__()
        self.addresses: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.addresses += [value for name, value in attrs if name in ("src", "href") and value]
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


@override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True)
def test_the_docs_page_loads_only_this_servers_own_files():
    client = Client()  # a new client: its middleware reads the settings above
    response = client.get(DOCS_URL, secure=True)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = Addresses()
    page.feed(response.content.decode())
    assert len(page.addresses) >= 4  # Swagger UI's style sheet, two scripts, the start script (and the icon)
    # The start script is a file of the docs route itself, not inline: the page's Content-Security-Policy runs
    # no inline script (config.csp).
    start_script = f"{DOCS_URL}?script="
    assert start_script in page.addresses
    assert not "".join(page.scripts).strip()
    for address in page.addresses:
        parts = urlsplit(address)
        assert not parts.scheme and not parts.netloc, address
        assert address.startswith("/static/drf_spectacular_sidecar/") or address == start_script, address
        served = client.get(address, secure=True)
        assert served.status_code == 200, address
        assert b"".join(served.streaming_content if served.streaming else [served.content])
    served = client.get(start_script, secure=True)
    assert served["Content-Type"].startswith("application/javascript")
    script = served.content.decode()
    assert not re.search(r"https?://", script), "the inline script names another host"
    assert '"validatorUrl": null' in script  # Swagger UI would otherwise send the document to swagger.io
    assert f'"{DOCUMENT_URL}"' in script


# --- the Mobile API v5's document (/mobile/v5/openapi.json) ---------------------------------------------------
# The same demands as Main's: valid OpenAPI 3.1, every route, method, field and error code the endpoints
# declare, real replies conforming, the replies before the view listed, a docs page of this server's own files.
# The completeness check is Main's own (`missing_from`), run over the Mobile routes.

MOBILE_BASE = "/mobile/v5"


@pytest.fixture(scope="module")
def mobile_document():
    response = Client().get(f"{MOBILE_BASE}/openapi.json", secure=True)
    assert response.status_code == 200, response.content
    return response.json()


def mobile_api_routes():
    """(OpenAPI path, view class) of every Mobile v5 route the document has an operation for (the authorize
    page is the security scheme's authorizationUrl, not an operation)."""
    from mobile_api.flavour_v5 import MOBILE_V5

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                route = "/" + ROUTE_PARAMETER.sub(r"{\1}", prefix + str(pattern.pattern)).replace("{pk}", "{id}")
                view_class = pattern.callback.view_class
                if hasattr(view_class, "describe") or MOBILE_V5.document.other_view_schema(
                    f"{MOBILE_BASE}{route}", view_class
                ):
                    yield route, view_class

    return list(walk(namespace_resolver("mobile_v5").url_patterns, ""))


@pytest.fixture
def mobile_routes(monkeypatch):
    """Main's walking helpers (api_routes, declared_operations, missing_from) over the Mobile routes."""
    import sys

    monkeypatch.setattr(sys.modules[__name__], "api_routes", mobile_api_routes)


@pytest.fixture
def mobile_world(org):
    from mobile_api.services.app_clients import app_client_create
    from tests.mobile_helpers import ALL_MOBILE_RIGHTS, issue_app_token, issue_member_tokens

    client, key = app_client_create(
        name="Aero Apps AB",
        app_name="Club Flyer",
        rights=ALL_MOBILE_RIGHTS,
        organizations=[],
        redirect_uris=["se.example.flyer:/oauth"],
        confidential=True,
    )
    member = MemberFactory(organization=org)
    return {
        "client": client,
        "key": key,
        "member": member,
        "tokens": issue_member_tokens(member, client),
        "app_token": issue_app_token(client),
    }


def z(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def mobile_items(world) -> dict:
    """An aircraft with a picture, a flight on it, a transaction and a booking going on, of the member."""
    import io

    from django.core.files.base import ContentFile
    from PIL import Image

    from tests.factories_operations import BookingFactory, FlightFactory, ObjectFactory, TransactionFactory

    member = world["member"]
    organization = member.organization
    aircraft = ObjectFactory(organization=organization, registration="SE-MOB")
    buffer = io.BytesIO()
    Image.new("RGB", (600, 400), (30, 90, 160)).save(buffer, "JPEG")
    aircraft.thumbnail.save("picture.jpg", ContentFile(buffer.getvalue()), save=True)
    now = clock.now().replace(second=0, microsecond=0)
    going = BookingFactory(
        organization=organization,
        object=aircraft,
        user=member.user,
        start_at=now - dt.timedelta(minutes=30),
        end_at=now + dt.timedelta(minutes=30),
    )
    return {
        "object": aircraft,
        "flight": FlightFactory(organization=organization, object=aircraft, pilot=member),
        "transaction": TransactionFactory(organization=organization, user=member.user),
        "going": going,
    }


def mobile_call(method: str, path: str, bearer: str | None, **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {bearer}"} if bearer else {}
    return getattr(Client(), method.lower())(f"{MOBILE_BASE}{path}", secure=True, **headers, **extra)


def mobile_oauth_post(path: str, client, key: str, data: dict, **extra):
    return Client().post(
        f"{MOBILE_BASE}{path}", data, secure=True, HTTP_AUTHORIZATION=basic(client.client_id, key), **extra
    )


def test_the_mobile_document_is_valid_openapi_3_1(mobile_document):
    validate_spec(mobile_document)
    assert mobile_document["openapi"].startswith("3.1")
    assert mobile_document["servers"] == [{"url": MOBILE_BASE}]
    assert mobile_document["info"]["title"] == "Mobile API v5"


def test_the_mobile_document_is_public_json_over_https_only():
    response = Client().get(f"{MOBILE_BASE}/openapi.json", secure=True)
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")

    plain = Client().get(f"{MOBILE_BASE}/openapi.json")
    assert plain.status_code == 403
    assert plain["Content-Type"] == "application/problem+json"


def test_the_mobile_security_scheme_is_the_authorization_code_flow_with_pkce(mobile_document, mobile_routes):
    schemes = mobile_document["components"]["securitySchemes"]
    flows = schemes["oauth2"]["flows"]

    assert schemes["oauth2"]["type"] == "oauth2"
    assert "PKCE" in schemes["oauth2"]["description"] and "S256" in schemes["oauth2"]["description"]
    assert flows["authorizationCode"]["authorizationUrl"] == reverse("mobile_v5:oauth-authorize")
    assert flows["authorizationCode"]["authorizationUrl"] == "/mobile/v5/oauth/authorize"
    assert flows["authorizationCode"]["tokenUrl"] == reverse("mobile_v5:oauth-token") == "/mobile/v5/oauth/token"
    assert flows["authorizationCode"]["refreshUrl"] == "/mobile/v5/oauth/token"
    assert flows["clientCredentials"]["tokenUrl"] == "/mobile/v5/oauth/token"
    assert "/oauth/authorize" not in mobile_document["paths"]
    for path, method, _, _ in declared_operations():
        assert mobile_document["paths"][path][method]["security"] == [{"oauth2": []}], (method, path)


def test_the_mobile_document_names_every_route_method_field_and_error(mobile_document, mobile_routes):
    assert {path for path, _ in api_routes()} >= {"/client", "/me", "/oauth/token", "/oauth/revoke"}
    assert list(declared_operations())

    assert missing_from(mobile_document) == []


def test_a_missing_mobile_route_or_error_is_found(mobile_document, mobile_routes):
    without_route = copy.deepcopy(mobile_document)
    del without_route["paths"]["/me"]
    without_code = copy.deepcopy(mobile_document)
    without_code["paths"]["/me"]["get"]["responses"]["403"]["content"]["application/problem+json"]["schema"][
        "properties"
    ]["code"]["enum"].remove(10305)

    assert "route /me" in missing_from(without_route)
    assert "error 10305 (403) of GET /me" in missing_from(without_code)


def test_the_mobile_errors_are_documented_where_they_can_happen(mobile_document):
    def codes(path, status):
        reply = mobile_document["paths"][path]["get"]["responses"][status]
        return reply["content"]["application/problem+json"]["schema"]["properties"]["code"]["enum"]

    assert codes("/me", "403") == [10000, 10003, 10305]
    assert codes("/client", "403") == [10000, 10003]  # the app's own token is good for GET /client
    for path in ("/me", "/client"):
        assert codes(path, "401") == [10001]
        assert codes(path, "429") == [10013]
        assert codes(path, "400") == [10005, 10007]
        assert codes(path, "414") == [10005]


def test_the_mobile_oauth_endpoints_are_documented_in_oauth_form(mobile_document):
    token = mobile_document["paths"]["/oauth/token"]["post"]
    revoke = mobile_document["paths"]["/oauth/revoke"]["post"]
    request = deref(mobile_document, token["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"])

    assert set(mobile_document["paths"]["/oauth/token"]) == set(mobile_document["paths"]["/oauth/revoke"]) == {"post"}
    assert request["properties"]["grant_type"]["enum"] == ["authorization_code", "refresh_token", "client_credentials"]
    assert (
        request["properties"]["code_verifier"]["minLength"],
        request["properties"]["code_verifier"]["maxLength"],
    ) == (
        43,
        128,
    )
    assert (
        "token"
        in deref(mobile_document, revoke["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"])[
            "required"
        ]
    )
    for operation in (token, revoke):
        for status in ("400", "401", "403", "413"):
            error = deref(mobile_document, operation["responses"][status]["content"]["application/json"]["schema"])
            assert error["required"] == ["error", "error_description"]
        assert "application/problem+json" in operation["responses"]["429"]["content"]
        assert "application/problem+json" in operation["responses"]["414"]["content"]


def test_real_mobile_replies_conform_to_the_document(mobile_document, mobile_world, media):
    conformance = Conformance(mobile_document)
    world = mobile_world
    member_token, app_token = world["tokens"].access_token, world["app_token"]

    conformance.check("GET", "/client", mobile_call("GET", "/client", member_token), 200)
    conformance.check("GET", "/client", mobile_call("GET", "/client", app_token), 200)
    conformance.check("GET", "/me", mobile_call("GET", "/me", member_token), 200)
    issued = mobile_oauth_post("/oauth/token", world["client"], world["key"], {"grant_type": "client_credentials"})
    conformance.check("POST", "/oauth/token", issued, 200)
    for path in ("/organization", "/organization/settings", "/sun-times"):
        conformance.check("GET", path, mobile_call("GET", path, member_token), 200)

    items = mobile_items(world)
    conformance.check("GET", "/objects", mobile_call("GET", "/objects?include=status,settings", member_token), 200)
    conformance.check("GET", "/objects/{id}", mobile_call("GET", f"/objects/{items['object'].pk}", member_token), 200)
    picture = mobile_call("GET", f"/objects/{items['object'].pk}/thumbnail", member_token)
    conformance.check("GET", "/objects/{id}/thumbnail", picture, 200)
    not_modified = mobile_call(
        "GET", f"/objects/{items['object'].pk}/thumbnail", member_token, HTTP_IF_NONE_MATCH=picture["ETag"]
    )
    conformance.check("GET", "/objects/{id}/thumbnail", not_modified, 304)
    for path, item in (("/flightlogs", items["flight"]), ("/transactions", items["transaction"])):
        conformance.check("GET", path, mobile_call("GET", path, member_token), 200)
        conformance.check("GET", path + "/{id}", mobile_call("GET", f"{path}/{item.pk}", member_token), 200)

    start = clock.now().replace(second=0, microsecond=0) + dt.timedelta(days=1)
    body = {"object_id": items["object"].pk, "start_at": z(start), "end_at": z(start + dt.timedelta(hours=1))}
    made = mobile_call("POST", "/bookings", member_token, data=body, content_type="application/json")
    conformance.check("POST", "/bookings", made, 201)
    booking_id = made.json()["data"]["id"]
    conformance.check("GET", "/bookings", mobile_call("GET", "/bookings", member_token), 200)
    conformance.check("GET", "/bookings/{id}", mobile_call("GET", f"/bookings/{booking_id}", member_token), 200)
    going = items["going"]
    conformance.check(
        "POST",
        "/bookings/{id}/cut",
        mobile_call("POST", f"/bookings/{going.pk}/cut", member_token, content_type="application/json"),
        200,
    )
    cancelled = mobile_call("POST", f"/bookings/{booking_id}/cancel", member_token, content_type="application/json")
    conformance.check("POST", "/bookings/{id}/cancel", cancelled, 200)

    revoked = mobile_oauth_post(
        "/oauth/revoke", world["client"], world["key"], {"token": world["tokens"].refresh_token}
    )
    conformance.check("POST", "/oauth/revoke", revoked, 200)

    documented = {(method, path) for path, item in mobile_document["paths"].items() for method in item}
    exercised = {(method, path) for method, path, status in conformance.checked if status < 300}
    assert documented - exercised == set(), "operations without a checked success reply"


def test_mobile_error_replies_conform_to_the_document(mobile_document, mobile_world, settings):
    from mobile_api.models import BlockedAddress

    conformance = Conformance(mobile_document)
    world = mobile_world
    member_token, app_token = world["tokens"].access_token, world["app_token"]

    for path in ("/client", "/me"):
        conformance.check("GET", path, mobile_call("GET", f"{path}?surprise=1", member_token), 400)
        conformance.check("GET", path, mobile_call("GET", path, None), 401)
        conformance.check("GET", path, mobile_call("GET", path, "wrong"), 401)
        conformance.check("GET", path, mobile_call("GET", path, member_token, HTTP_HOST="evil.example"), 400)
        conformance.check_method_not_allowed("POST", path, mobile_call("POST", path, member_token))
    conformance.check("GET", "/me", mobile_call("GET", "/me", app_token), 403)  # 10305
    settings.MOBILE_LOGIN_CALLS_PER_MINUTE = 0
    conformance.check("GET", "/me", mobile_call("GET", "/me", member_token), 429)
    BlockedAddress.objects.create(network="127.0.0.1")
    conformance.check("GET", "/client", mobile_call("GET", "/client", member_token), 403)  # 10003
    conformance.check(
        "POST", "/oauth/token", mobile_oauth_post("/oauth/token", world["client"], world["key"], {}), 403
    )  # access_denied
    BlockedAddress.objects.all().delete()
    wrong_key = mobile_oauth_post("/oauth/token", world["client"], "wrong", {"grant_type": "client_credentials"})
    conformance.check("POST", "/oauth/token", wrong_key, 401)
    password = mobile_oauth_post(
        "/oauth/token", world["client"], world["key"], {"grant_type": "password", "username": "a", "password": "b"}
    )
    conformance.check("POST", "/oauth/token", password, 400)
    conformance.check(
        "POST", "/oauth/revoke", mobile_oauth_post("/oauth/revoke", world["client"], world["key"], {}), 400
    )


def test_replies_before_the_view_are_documented_on_every_mobile_operation(mobile_document):
    for path, item in mobile_document["paths"].items():
        for method, operation in item.items():
            if path.startswith("/oauth/"):
                continue
            codes = {
                status: reply["content"]["application/problem+json"]["schema"]["properties"]["code"]["enum"]
                for status, reply in operation["responses"].items()
                if status >= "400"
            }
            assert 10005 in codes["400"] and codes["414"] == [10005], (method, path)
            assert ("413" in codes) is ("requestBody" in operation), (method, path)


@override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True)
def test_the_mobile_docs_page_loads_only_this_servers_own_files():
    response = Client().get(f"{MOBILE_BASE}/docs", secure=True)

    assert response.status_code == 200
    page = Addresses()
    page.feed(response.content.decode())
    assert len(page.addresses) >= 3
    for address in page.addresses:
        parts = urlsplit(address)
        assert not parts.scheme and not parts.netloc, address
    assert f"{MOBILE_BASE}/docs?script=" in page.addresses  # the start script, a file (config.csp)
    script = Client().get(f"{MOBILE_BASE}/docs?script=", secure=True).content.decode()
    assert f'"{MOBILE_BASE}/openapi.json"' in script


# --- rules the documents state, and the rules they can only describe (issue 18, item 7) -----------------------


def body_schema(document: dict, method: str, path: str) -> dict:
    schema = document["paths"][path][method.lower()]["requestBody"]["content"]["application/json"]["schema"]
    return document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema


def field_schema(document: dict, method: str, path: str, field: str) -> dict:
    """The schema of a body field (`accounting.amount`) or, for a GET, of a query parameter."""
    if method == "GET":
        parameters = document["paths"][path]["get"]["parameters"]
        return next(parameter for parameter in parameters if parameter["name"] == field)
    schema = body_schema(document, method, path)
    for name in field.split("."):
        schema = schema["properties"][name]
    return schema


def ecma_pattern(schema: dict) -> re.Pattern:
    """A document's pattern as JSON Schema (ECMA-262) reads it: `$` only at the very end (not before a final
    newline, as Python's)."""
    return re.compile(schema["pattern"].replace("$", r"\Z"))


def test_every_rule_that_depends_on_the_callers_data_is_described_in_the_document(document, mobile_document):
    """The rules that schemathesis's positive_data_acceptance may see refuse valid data (tests/fuzz_checks.py)
    are those no schema can state: each field carries them in its description."""
    from tests.fuzz_checks import UNSTATED_RULES

    for (method, path), fields in UNSTATED_RULES.items():
        in_main = method.lower() in document["paths"].get(path, {})
        for field in fields:
            schema = field_schema(document if in_main else mobile_document, method, path, field)
            assert schema.get("description"), (method, path, field)


def test_the_documented_username_pattern_refuses_no_username_the_server_takes(document):
    """Every character of the Basic Multilingual Plane that the documents' username patterns leave out is one
    the server refuses (no valid login is called invalid), and the controls, spaces and format characters
    are left out (a login check's U+009A was valid data refused)."""
    import unicodedata

    from accounts.usernames import username_problem

    login = ecma_pattern(field_schema(document, "POST", "/login-checks", "username"))
    new = ecma_pattern(field_schema(document, "POST", "/users", "username"))
    for code in [*range(0xD800), *range(0xE000, 0x10000)]:
        character = chr(code)
        if not login.match(f"1-a{character}"):
            assert username_problem(f"1-a{character}") is not None, hex(code)
        if unicodedata.category(character) in {"Cc", "Cf", "Zs", "Zl", "Zp"}:
            assert not login.match(f"1-a{character}"), hex(code)
        assert bool(new.match(f"1-a{character}")) == bool(login.match(f"1-a{character}")), hex(code)
    assert login.match("1-ёжик") and login.match("erik")
    assert new.match("12-erik") and not new.match("erik") and not new.match("0-erik") and not new.match("12-")


def test_the_documented_booking_times_are_the_ones_the_server_takes(mobile_document):
    """POST /bookings' start_at and end_at: the Mobile document's pattern matches exactly the points in time the
    server accepts, every day from 1890 to 3010 and the edges of the clock and the offsets
    ("0000-00-00T00:00Z" was valid data refused)."""
    from bookings.api.bookings_mobile_v5 import BookingBody

    pattern = ecma_pattern(field_schema(mobile_document, "POST", "/bookings", "start_at"))
    field = BookingBody.fields["start_at"]

    def accepted(value: str) -> bool:
        problems = []
        field.clean(value, "start_at", problems)
        return not problems

    day = dt.date(1890, 1, 1)
    while day <= dt.date(3010, 12, 31):
        value = f"{day.isoformat()}T12:00Z"
        assert bool(pattern.match(value)) is accepted(value) is (1900 <= day.year <= 2999), value
        day += dt.timedelta(days=1)
    for value, valid in [
        ("0000-00-00T00:00Z", False),
        ("2026-02-29T10:00Z", False),
        ("2028-02-29T10:00Z", True),
        ("2100-02-29T10:00Z", False),
        ("2026-11-25T24:00Z", False),
        ("2026-11-25T23:59:59.999999Z", True),
        ("2026-11-25T23:59:60Z", False),
        ("2026-11-25T14:00+23:59", True),
        ("2026-11-25T14:00+24:00", False),
        # The year as written counts: in UTC these are 1899 and 3000.
        ("1900-01-01T00:00+01:00", True),
        ("2999-12-31T23:00-05:00", True),
    ]:
        assert bool(pattern.match(value)) is accepted(value) is valid, value


def test_amounts_are_documented_as_multiples_of_a_cent(document):
    """multipleOf 0.01 on both amounts of POST /transactions, judged in decimal as JSON Schema means it (the
    validator schemathesis uses, jsonschema-rs, does; docs/decisions.md §7.4 "Amounts")."""
    import jsonschema_rs

    for field in ("amount", "accounting.amount"):
        schema = field_schema(document, "POST", "/transactions", field)
        assert schema["multipleOf"] == 0.01
        validator = jsonschema_rs.validator_for(schema)
        assert all(validator.is_valid(cents / 100) for cents in range(1, 10001))
        assert not validator.is_valid(0.001) and not validator.is_valid(12.345)


def test_the_documented_expected_airborne_range_is_the_servers(mobile_document):
    """POST /bookings' expected_airborne: the range and the two decimals the server checks are in the document
    (only where it may be given at all is the organization's and the object's data, in its description)."""
    from decimal import Decimal

    import jsonschema_rs

    from bookings.services import expected_airborne_in_range

    schema = field_schema(mobile_document, "POST", "/bookings", "expected_airborne")
    validator = jsonschema_rs.validator_for(schema)
    for value in ["0", "0.01", "1.5", "999.99", "1000", "-0.01", "0.001", "12.345"]:
        assert validator.is_valid(float(value)) is expected_airborne_in_range(Decimal(value)), value
    assert "use_expected_airborne" in schema["description"]
