"""Every `code` a problem+json answer can carry: the enum of `Problem.code` in openapi.yaml.

Clients switch on `code`, so the list is the contract's, and complete: a test
(tests/service/test_problem_codes.py) reads every place the code makes a problem, a refusal or an
engine's illegal move, and fails on a code missing here or listed here and made nowhere.
"""

from __future__ import annotations

PROBLEM_CODES: tuple[str, ...] = (
    "after_beyond_version", "already_chosen", "already_seated", "as_of_not_reached",
    "auditor_not_found", "bad_action", "bad_build", "bad_capture", "bad_card", "bad_declaration",
    "bad_extend", "bad_options", "bad_player_count", "bad_players", "bad_request", "bad_reserve",
    "bad_target", "bet_out_of_range", "body_too_large", "build_reserved", "buy_in_fixed",
    "buy_in_required", "buy_in_too_low", "cannot_split", "cannot_volunteer", "card_not_in_hand",
    "checkpoint_differs", "checkpoint_pending", "conflict", "correction_overdraws", "deck_too_small",
    "dispute_closed", "dispute_not_found", "duplicate_seat", "error", "expectation_failed",
    "expiry_passed", "expiry_too_far", "exports_busy", "figure_cannot_build", "forbidden",
    "hand_in_play", "hand_not_found", "hand_not_settled", "headers_too_large", "house_key_missing",
    "idempotency_key_reused", "if_match_required", "insufficient_balance", "insufficient_treasure",
    "internal_error", "invalid_correction", "invalid_cursor", "invalid_event",
    "invalid_idempotency_key", "invalid_input", "invalid_json", "invalid_name", "invalid_note",
    "invalid_options", "invalid_secret", "invalid_ticket", "invalid_url", "job_not_failed",
    "job_not_found", "key_expired", "key_not_found", "key_revoked", "locked", "makes_pair",
    "method_not_allowed", "missing_scope", "must_hold_value", "must_take_matching",
    "no_cards_to_draw", "no_hand_in_play", "no_seed", "not_acceptable", "not_enough_players",
    "not_found", "not_implemented", "not_in_hand", "not_of_the_hand", "not_ready", "not_seated",
    "not_settled", "not_your_dispute", "not_your_hand", "not_your_seat", "not_your_turn",
    "nothing_to_capture", "own_build", "owns_build", "player_erased", "player_not_found",
    "precondition_failed", "precondition_required", "request_line_too_long", "request_timeout",
    "rules_version_not_served", "rules_version_older", "scope_not_held", "stale_version",
    "subscription_not_found", "table_full", "table_not_found", "table_not_open", "table_over",
    "ticket_not_a_token", "ticket_not_accepted", "ticket_wrong_stream", "token_revoked",
    "too_early", "too_many_requests", "trail_not_allowed", "turn_timed_out", "unauthorized",
    "unavailable", "unknown_command", "unknown_event_type", "unknown_game", "unknown_item",
    "unknown_position", "unknown_scope", "unknown_seat", "unknown_variant",
    "unsupported_media_type", "url_not_allowed", "variant_conflict", "version_conflict",
    "volunteer_taken", "waiters_busy", "wrong_phase", "wrong_value",
)
