"""The WSGI entry point for gunicorn: `gunicorn service.wsgi:app`."""

from __future__ import annotations

from service import logs
from service.app import create_app
from service.config import Config

logs.configure()
app = create_app(Config.from_env())
