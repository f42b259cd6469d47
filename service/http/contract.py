"""What the OpenAPI document says of each operation beyond its own schemas: a stable
`operationId`, the headers it reads and sends, and every status it can answer.

A view names its `operationId`, the refusals of its own (`Blueprint.operation`) and the headers it
reads; what the shared checks can answer is added here from what the view declares, so that the
document lists what the code does: `auth.require` (401, 403, and what `refuse_what_it_does_not_take`
refuses: 404, 406, 413, 422), a JSON body (400, 415), the rate limit (429), the database or a bound
away (503), and on every POST and DELETE `idempotency` (the `Idempotency-Key` header, 409, 422).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from copy import deepcopy
from typing import Any

from apispec import APISpec

from service.http.problems import PROBLEM, ProblemSchema

# Each problem status a shared check or a view answers, its component's name and description.
PROBLEMS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "The body is not valid JSON."),
    401: ("Unauthorized", "No valid bearer token: send `Authorization: Bearer <token>`."),
    403: ("Forbidden", "The caller's role, or a player other than the one named, may not do this;"
                       " or the operator key lacks the operation's scope (`missing_scope`, the"
                       " scope in `scope`)."),
    404: ("NotFound", "Nothing has this id."),
    406: ("NotAcceptable", "None of the types this operation answers in meets `Accept`;"
                           " `available` lists them."),
    409: ("Conflict", "The request does not fit the state things are in now, or a request with"
                      " the same `Idempotency-Key` is being handled: see `code`."),
    412: ("PreconditionFailed", "`If-Match` names a version the table is no longer at; `version`"
                                " is the current one."),
    413: ("ContentTooLarge", "The body is larger than the service takes."),
    415: ("UnsupportedMediaType", "The body is not sent as `application/json`, or is sent with a"
                                  " `Content-Encoding` (the service decodes none)."),
    422: ("UnprocessableContent", "The request does not fit its schema or the rules: `errors` names"
                                 " the fields, `code` the rule. So is a query parameter the"
                                 " operation does not define, or one given more than once"
                                 " (`invalid_input`: a list such as `types` is one"
                                 " comma-separated value)."),
    428: ("PreconditionRequired", "`If-Match` is missing, or names not exactly one version."),
    429: ("TooManyRequests", "Past this caller's rate limit."),
    503: ("ServiceUnavailable", "The database or the job queue is away, the service holds as"
                               " many waits or exports as it can, or what the request needs has"
                               " been locked by another transaction for over 10 s (`locked`):"
                               " retry."),
}

RETRY_AFTER = {"description": "Seconds to wait before retrying.", "required": True,
               "schema": {"type": "integer", "minimum": 0}}
PROBLEM_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"description": "The scheme to authenticate with: Bearer.",
                               "required": True, "schema": {"type": "string"}}},
    429: {"Retry-After": RETRY_AFTER},
    503: {"Retry-After": RETRY_AFTER},
}

ETAG = {"ETag": {"description": "The table's version (`\"12\"`): send it back as `If-Match`.",
                 "required": True, "schema": {"type": "string"}}}
# The methods `service.http.idempotency` honours `Idempotency-Key` on.
IDEMPOTENT = ("post", "delete")
IDEMPOTENT_REPLAYED = {"description": "`true` when this is the stored answer to an earlier request"
                                      " with the same `Idempotency-Key`, replayed.",
                       "schema": {"type": "string", "enum": ["true"]}}


def _header(name: str, description: str, required: bool = False, **schema: Any) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": required, "description": description,
            "schema": {"type": "string", **schema}}


# Header values arrive as Latin-1: a key of other characters could not be read as it was sent.
IDEMPOTENCY_KEY_PATTERN = "^[ -~]{1,200}$"
IDEMPOTENCY_KEY = _header(
    "Idempotency-Key", "Any 1 to 200 printable ASCII characters (a UUID, say), new for each"
    " request: a retry with the same key and the same request gets the first answer back"
    " (`Idempotent-Replayed: true`) and changes nothing; with another request, 422"
    " `idempotency_key_reused`.",
    minLength=1, maxLength=200, pattern=IDEMPOTENCY_KEY_PATTERN)
IF_MATCH_REQUIRED = _header(
    "If-Match", "The table's version as its ETag, quoted (`\"12\"`): exactly one, not `*`. 412"
    " when the table is at another version, 428 when missing or not one strong ETag (compared"
    " strongly, as RFC 9110 says: a weak `W/\"12\"` matches no version).", required=True)
IF_MATCH = _header(
    "If-Match", "Optional: the table's ETag as last seen (or `*`); 412 when the table is at"
    " another version. A list of ETags is met when any of them is the table's (RFC 9110): only"
    " a move needs exactly one. Compared strongly: a weak ETag matches no version.")
IF_NONE_MATCH = _header(
    "If-None-Match", "The table's ETag as last seen: 304, with no body, while it is still at it.")
LAST_EVENT_ID = _header(
    "Last-Event-ID", "The `id:` of the last event received, which the stream goes on after, even"
    " when `after` is given too: it is the client's latest place. An id this stream never sent"
    " is ignored (`after` decides, else the stream starts from the beginning).")


def register_responses(spec: APISpec) -> None:
    """The problem responses, as components referenced by name (only those used are written)."""
    for status, (name, description) in PROBLEMS.items():
        response: dict[str, Any] = {"description": description,
                                    "content": {PROBLEM: {"schema": ProblemSchema}}}
        if status in PROBLEM_HEADERS:
            response["headers"] = PROBLEM_HEADERS[status]
        spec.components.response(name, response, lazy=True)


def operation(fn: Any, operation_id: str, refusals: Iterable[int],
              parameters: Iterable[Mapping[str, Any]]) -> Any:
    """Record on view `fn` what `Blueprint.operation` was given, for `prepare_doc`."""
    unknown = set(refusals) - set(PROBLEMS)
    if unknown:
        raise ValueError(f"no problem response for {sorted(unknown)}: add it to PROBLEMS")
    fn._apidoc = {**getattr(fn, "_apidoc", {}), "contract": {
        "operation_id": operation_id, "refusals": sorted(refusals),
        "parameters": [dict(p) for p in parameters]}}
    return fn


def authenticated(fn: Any, restricted: bool, scope: str | None = None) -> Any:
    """Mark view `fn` as passing `auth.require`: `restricted` when some caller is refused 403;
    `scope`, what an operator's key needs to call it."""
    fn._apidoc = {**getattr(fn, "_apidoc", {}), "caller": {"restricted": restricted,
                                                            "scope": scope}}
    return fn


def open_to_all(fn: Any) -> Any:
    """Mark view `fn` as passing `auth.public`: no token needed, what it does not take refused."""
    fn._apidoc = {**getattr(fn, "_apidoc", {}), "caller": {"restricted": False, "public": True}}
    return fn


def statuses(doc: Mapping[str, Any], doc_info: Mapping[str, Any], method: str) -> set[int]:
    """The problem statuses the operation can answer."""
    found = set(doc_info.get("contract", {}).get("refusals", []))
    caller = doc_info.get("caller")
    if caller is not None:
        # A public view answers no 401: a bad token is let through, as no token is.
        found |= {406, 413, 422, 429, 503} | (set() if caller.get("public") else {401})
        if caller["restricted"]:
            found.add(403)
    if "requestBody" in doc:
        found |= {400, 415, 422}
    if method in IDEMPOTENT:
        found |= {409, 422}
    return found


def prepare_doc(doc: dict[str, Any], doc_info: dict[str, Any], *, method: str,
                **kwargs: Any) -> dict[str, Any]:
    """flask-smorest's last documenting step of each operation (`Blueprint._prepare_doc_cbks`)."""
    contract = doc_info.get("contract", {})
    if "operation_id" in contract:
        doc["operationId"] = contract["operation_id"]
    parameters = deepcopy(contract.get("parameters", []))
    if method in IDEMPOTENT:
        parameters.append(IDEMPOTENCY_KEY)
    if parameters:
        doc["parameters"] = [*doc.get("parameters", []), *parameters]
    responses = {str(status): response for status, response in doc.get("responses", {}).items()}
    if method in IDEMPOTENT:
        for status, response in responses.items():
            if status.startswith("2") and isinstance(response, dict):
                response.setdefault("headers", {})["Idempotent-Replayed"] = IDEMPOTENT_REPLAYED
    for problem in statuses(doc, doc_info, method):
        # A status the view documents itself (a probe's 503, say) is its own; flask-smorest's
        # generic 422 of an arguments schema is replaced by ours.
        key = str(problem)
        if key not in responses or responses[key] == "UNPROCESSABLE_ENTITY":
            responses[key] = PROBLEMS[problem][0]
    doc["responses"] = responses
    scope = doc_info.get("caller", {}).get("scope")
    if scope is not None:
        # Where a client generator and a reader both find it: an extension, and the text.
        doc["x-banco-scope"] = scope
        doc["description"] = (doc.get("description", "").rstrip() +
                              f"\n\nAn operator key needs the scope `{scope}`.").lstrip()
    return doc
