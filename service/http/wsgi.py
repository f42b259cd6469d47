"""The WSGI entry point for gunicorn: `gunicorn service.http.wsgi:app`."""

from __future__ import annotations

from service.http.app import create_app
from service.runtime import logs
from service.runtime.config import Config

logs.configure()
app = create_app(Config.from_env())
