"""The layers' contracts (pyproject.toml, [tool.importlinter]) see every module of the domain apps: each is
either domain, checked by "The domain knows no interface and no HTTP", or an interface module, which the
domain never imports. A new module that is neither fails here, so that it cannot escape the contracts."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAIN_APPS = ["accounts", "objects_app", "bookings", "flightlog", "economy", "webhooks"]
# Each app's interfaces (the domain may not import them) and what is neither domain nor interface.
INTERFACE = {"api", "admin", "admin_forms", "admin_deliveries", "forms", "management", "receiver"}
PLUMBING = {"apps", "migrations", "__init__"}


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def top_modules(app: str) -> set[str]:
    folder = ROOT / app
    names = {path.stem for path in folder.glob("*.py")}
    names |= {path.name for path in folder.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    return names


def test_every_module_of_a_domain_app_is_domain_or_interface():
    domain = set(contracts()["domain-no-interface"]["source_modules"])
    forbidden = set(contracts()["domain-no-interface"]["forbidden_modules"])
    unclassified = []
    for app in DOMAIN_APPS:
        for name in sorted(top_modules(app) - PLUMBING):
            module = f"{app}.{name}"
            if name in INTERFACE:
                assert module in forbidden, f"{module} is an interface: the domain contract must forbid it"
            elif module not in domain:
                unclassified.append(module)
    assert not unclassified, f"neither domain nor interface in pyproject.toml's contracts: {unclassified}"


def test_the_domain_layers_name_every_domain_app():
    layers = " | ".join(contracts()["domain-layers"]["layers"])
    assert sorted(name.strip() for name in layers.split("|")) == sorted(DOMAIN_APPS)
