"""The OpenAPI document, generated from the code's schemas and views."""

from __future__ import annotations

import yaml

from service.app import create_app
from service.config import Config


def generate() -> str:
    """The document as YAML, stable from run to run."""
    config = Config(database_url="postgresql://unused", redis_url="redis://unused",
                    operator_key="unused-unused-unused")
    app = create_app(config, connect=False)
    spec = app.extensions["banco.api"].spec.to_dict()
    # Errors are rendered as problem+json (service/problems.py); say so in the document.
    for response in spec["components"]["responses"].values():
        content = response.get("content", {})
        if "application/json" in content:
            content["application/problem+json"] = content.pop("application/json")
    return yaml.safe_dump(spec, sort_keys=True, allow_unicode=True)
