"""The demo world's data files: demo/data/<name>.yaml, read once per process (docs/decisions.md §12.19)."""

import functools
from pathlib import Path

import yaml

DATA_DIR = Path(__file__).resolve().parent / "data"


@functools.cache
def load(name: str) -> dict:
    """The document of demo/data/`name`.yaml. Shared by every caller: read it, never change it."""
    with (DATA_DIR / f"{name}.yaml").open(encoding="utf-8") as file:
        return yaml.safe_load(file)
