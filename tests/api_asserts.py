"""Checks shared by the convention tests: a Problem Details reply and its `errors`."""

PROBLEM_CONTENT_TYPE = "application/problem+json"
KIND_OF_STATUS = {
    400: "validation",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    500: "internal",
}


def assert_problem(response, status: int, code: int) -> dict:
    """The reply is Problem Details with this status and code; returns the body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"https://testserver/errors/{KIND_OF_STATUS[status]}"
    assert isinstance(body["title"], str) and body["title"]
    assert body["request_id"] == response["Request-Id"]
    return body


def problem_fields(response) -> dict[str, int]:
    """`errors` as {field: code}."""
    return {item["field"]: item["code"] for item in response.json()["errors"]}


def problem_messages(response) -> dict[str, str]:
    return {item["field"]: item["message"] for item in response.json()["errors"]}
