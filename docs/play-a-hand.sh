#!/usr/bin/env bash
# A complete hand of Sette e mezzo, played with curl and jq against a running Banco.
#   B: the API's URL; KEY: the operator key (`./quickstart run` prints both).
set -euo pipefail
B=${B:-http://127.0.0.1:8000}
KEY=${KEY:-$(cat .banco/operator_key)}
op=(-H "Authorization: Bearer $KEY" -H 'Content-Type: application/json')
# Two players, each with a token of their own, and treasure in their wallets.
ANN=$(curl -s "$B/v1/players" "${op[@]}" -d '{"name": "Ann"}')
BOB=$(curl -s "$B/v1/players" "${op[@]}" -d '{"name": "Bob"}')
ANN_ID=$(echo "$ANN" | jq -r .player.id); ANN_TOKEN=$(echo "$ANN" | jq -r .token)
BOB_ID=$(echo "$BOB" | jq -r .player.id); BOB_TOKEN=$(echo "$BOB" | jq -r .token)
for P in $ANN_ID $BOB_ID; do
  curl -s "$B/v1/players/$P/deposits" "${op[@]}" -d '{"amount": 100, "reason": "cash at the desk"}' > /dev/null
done
# A table of Sette e mezzo; both sit down with 50 treasures each.
TABLE=$(curl -s "$B/v1/tables" "${op[@]}" -d '{"game": "sette-e-mezzo", "options": {"max_bet": 20}}' | jq -r .id)
ann=(-H "Authorization: Bearer $ANN_TOKEN" -H 'Content-Type: application/json')
bob=(-H "Authorization: Bearer $BOB_TOKEN" -H 'Content-Type: application/json')
curl -s "$B/v1/tables/$TABLE/seats" "${ann[@]}" -d '{"buy_in": 50, "seed": "lucky seven"}' | jq -c '{seat}'
curl -s "$B/v1/tables/$TABLE/seats" "${bob[@]}" -d '{"buy_in": 50}' | jq -c '{seat}'
# Deal: the deck's SHA-256 commitment is recorded before any card.
HAND=$(curl -s -X POST "$B/v1/tables/$TABLE/hands" "${op[@]}" | jq -r .hand.id)
# Play: each step, whoever has legal actions sends one, with the table version as If-Match.
while true; do
  for who in ann bob; do
    declare -n auth=$who
    T=$(curl -s "$B/v1/tables/$TABLE" "${auth[@]}")
    [ "$(echo "$T" | jq -r .status)" = playing ] || break 2
    ACTION=$(echo "$T" | jq -c '.legal_actions[0] // empty
      | with_entries(if (.value | type) == "object" then .value |= .min else . end)')
    [ -n "$ACTION" ] || continue
    echo "$who sends $ACTION"
    curl -s "$B/v1/tables/$TABLE/actions" "${auth[@]}" -H "If-Match: \"$(echo "$T" | jq .version)\"" \
         -d "$ACTION" > /dev/null
  done
done
# The worker settles the hand in a moment.
until [ "$(curl -s "$B/v1/hands/$HAND" "${ann[@]}" | jq -r .status)" = settled ]; do sleep 0.2; done
curl -s "$B/v1/hands/$HAND" "${ann[@]}" | jq -c '{status, commitment, server_seed, postings}'
curl -s "$B/v1/players/$ANN_ID/balance" "${ann[@]}" | jq -c '{balance}'
curl -s "$B/v1/tables/$TABLE" "${ann[@]}" | jq -c '{status, seats}'
# Every treasure move of the hand: the bet, what was paid during the hand (a bust pays at once)
# and the settlement's postings.
curl -s "$B/v1/tables/$TABLE/events" "${ann[@]}" \
  | jq -c '.items[] | select(.type == "TreasurePosted" and .hand != null) | .data | {reason, amount, from, to}'
