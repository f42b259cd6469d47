"""The blueprint every resource module uses: flask-smorest's, refusing unknown query parameters.

webargs ignores a query parameter its schema does not name, so `GET /v1/tables?stauts=open` would
list every table as if unfiltered. Here it is a 422 problem naming the parameter instead, as an
unknown field of a JSON body already is.
"""

from __future__ import annotations

from flask_smorest import Blueprint as SmorestBlueprint
from marshmallow import RAISE
from webargs.flaskparser import FlaskParser


class _Parser(FlaskParser):
    def __init__(self) -> None:
        super().__init__()
        self.DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
                                            "query": RAISE, "querystring": RAISE}


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = _Parser()
