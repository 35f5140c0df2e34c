"""The one place for checks that tests share about replies: a Problem Details error and its `errors`.

The kinds are written out here rather than imported from apicore, so that a test of the error form can fail
when the service's own table is wrong (../shared/DECISIONS.md "Addresses": problem `type`).
"""

PROBLEM_CONTENT_TYPE = "application/problem+json"
KIND_OF_STATUS = {
    400: "validation",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    410: "gone",
    413: "validation",
    414: "validation",
    415: "validation",
    429: "too-many-requests",
    500: "internal",
}


def assert_problem(response, status: int, code: int) -> dict:
    """The reply is Problem Details with this status and code, the type of the status's kind, a title and the
    call's request id; returns the body. Works for every status the API answers with an error."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert body["type"].endswith(f"/errors/{KIND_OF_STATUS[status]}"), body["type"]
    assert isinstance(body["title"], str) and body["title"], body
    assert body["request_id"] == response["Request-Id"]
    return body


def problem_fields(body) -> dict[str, int]:
    """`errors` as {field: code}; takes the reply or its parsed body."""
    return {item["field"]: item["code"] for item in _errors(body)}


def problem_messages(body) -> dict[str, str]:
    """`errors` as {field: message}; takes the reply or its parsed body."""
    return {item["field"]: item["message"] for item in _errors(body)}


def _errors(body) -> list[dict]:
    if not isinstance(body, dict):
        body = body.json()
    return body["errors"]
