-- The disputes about a hand (service/application/dispute_reads.py), found without reading every
-- dispute of the log: the hand page and GET /v1/hands/{id} list them.
CREATE INDEX events_dispute_opened ON events ((data->>'hand_id')) WHERE type = 'DisputeOpened';
