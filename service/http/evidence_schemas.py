"""The evidence bundle and the house key as the API documents them (`service.application.evidence`)."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.http.audit_schemas import HAND_ID, TABLE_ID


class BundleEventSchema(Schema):
    position = fields.Integer(required=True)
    stream_id = fields.String(required=True)
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    recorded_at = fields.String(required=True)
    hash = fields.String(required=True, metadata={"description": "The chain link, hex."})
    canonical = fields.String(required=True, allow_none=True, metadata={
        "description": "The exact text the chain link hashed (UTF-8), or null when withheld "
                       "from you (it holds something your seat may not see)."})
    shown = fields.Dict(metadata={"description": "A withheld event as you may see it."})


class InclusionProofSchema(Schema):
    leaf_index = fields.Integer(required=True)
    tree_size = fields.Integer(required=True)
    path = fields.List(fields.String(), required=True,
                       metadata={"description": "RFC 9162 audit path, leaf to root, hex."})
    version = fields.Integer(metadata={
        "description": "The version of the event proved: `last_event`'s is the last event the "
                       "bundle gives whole (every event after it is withheld). Absent in "
                       "banco-evidence/1 bundles, whose last event is the one proved."})


class AttestationSchema(Schema):
    algorithm = fields.String(required=True, metadata={"example": "Ed25519"})
    key_id = fields.String(required=True, metadata={"description": "The house key's id."})
    signature = fields.String(required=True, metadata={
        "description": "Base64 Ed25519 signature by the house key over the bundle's canonical "
                       "JSON (sorted keys, no spaces, UTF-8) with this `signature` left out."})


class SignedCheckpointSchema(Schema):
    statement = fields.String(required=True, metadata={
        "description": "The signed text: JSON with format, id, txid, position, events, root, "
                       "recorded_at."})
    algorithm = fields.String(required=True, metadata={"example": "Ed25519"})
    signature = fields.String(required=True, metadata={"description": "Base64."})
    public_key = fields.String(required=True, metadata={"description": "Base64, 32 bytes."})
    key_id = fields.String(required=True)
    timestamp = fields.Dict(required=True, allow_none=True, metadata={
        "description": "The checkpoint's RFC 3161 time-stamp, when an authority is configured: "
                       "tsa_url, and reply, the authority's TimeStampResp (DER, base64) over "
                       "SHA-256 of the statement (`openssl ts -verify -data statement -in reply`)."})


class EvidenceSchema(Schema):
    format = fields.String(required=True, metadata={"example": "banco-evidence/2"})
    hand_id = fields.String(required=True, metadata=HAND_ID)
    table_id = fields.String(required=True, metadata=TABLE_ID)
    game = fields.String(required=True)
    rules_version = fields.Integer(required=True)
    options = fields.Dict(required=True)
    viewer = fields.Dict(required=True, metadata={"example": {"kind": "seat", "seat": 1}})
    redacted = fields.Boolean(required=True)
    table_created = fields.Nested(BundleEventSchema, required=True)
    chain = fields.Dict(required=True, metadata={
        "description": "stream_id, first_version and previous_hash: the link before the hand."})
    events = fields.List(fields.Nested(BundleEventSchema), required=True)
    seeds = fields.Dict(required=True)
    postings = fields.List(fields.Dict(), required=True)
    checkpoint = fields.Nested(SignedCheckpointSchema, required=True)
    inclusion = fields.Dict(keys=fields.String(), values=fields.Nested(InclusionProofSchema),
                            required=True)
    attestation = fields.Nested(AttestationSchema, required=True, metadata={
        "description": "The house's signature over the whole bundle: the viewer, what withheld "
                       "events show, the summary fields, every event's time and place."})


class HouseKeySchema(Schema):
    algorithm = fields.String(required=True, metadata={"example": "Ed25519"})
    public_key = fields.String(required=True, metadata={"description": "Base64, 32 bytes."})
    public_key_pem = fields.String(required=True)
    key_id = fields.String(required=True)
