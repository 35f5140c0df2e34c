"""`manage.py check --deploy` with production settings passes: no error and no warning that is not a documented
decision (docs/decisions.md §12.20 "The deployment checks"). The OpenAPI documents are checked by our own deploy
check (apicore.openapi.documents_check) instead of drf-spectacular's, which reads none of our views."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from apicore import openapi

ROOT = Path(__file__).resolve().parent.parent
# Each silenced check is a decision written down in docs/decisions.md §12.20.
DECIDED = {"oauth2_provider.W008", "security.W005", "security.W021"}


def production_env() -> dict:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("DJANGO_", "PYTEST"))}
    env.update(
        SECRET_KEY=secrets.token_urlsafe(64),  # 86 characters of 64 random bytes
        DEBUG="false",
        REQUIRE_HTTPS="true",
        ALLOWED_HOSTS="example.org",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    return env


def test_check_deploy_with_production_settings_finds_nothing(tmp_path):
    env = production_env()
    env["VAR_DIR"] = str(tmp_path)  # nowhere near the developer's own files
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_only_documented_checks_are_silenced():
    assert set(settings.SILENCED_SYSTEM_CHECKS) == DECIDED
    decisions = (ROOT / "docs" / "decisions.md").read_text()
    section = decisions[decisions.index("### 12.20 The deployment checks") :]
    assert all(check in section for check in DECIDED)


@pytest.mark.django_db
def test_the_openapi_documents_check_generates_each_document():
    assert openapi.documents_check() == []


@pytest.mark.django_db
def test_the_openapi_documents_check_reports_a_document_that_fails(monkeypatch):
    def broken(self, request=None, public=False):
        raise RuntimeError("no schema")

    monkeypatch.setattr(openapi.DeclaredSchemaGenerator, "get_schema", broken)

    problems = openapi.documents_check()

    assert {problem.id for problem in problems} == {"apicore.E001"}
    assert len(problems) == 2  # the Main and the Mobile document
    assert all("no schema" in problem.msg for problem in problems)
