-- Each player's own key, under which his personal data (his name) is sealed in the log. Not a
-- projection: nothing rebuilds it, and erasing the player deletes his row, after which the
-- ciphertext in the log can no longer be read (events/personal_data.py).
CREATE TABLE player_keys (
    player_id  text        PRIMARY KEY,
    key        bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- An erased player's row keeps his id and dates; his name is gone.
ALTER TABLE players ALTER COLUMN name DROP NOT NULL;
ALTER TABLE players ADD COLUMN erased_at timestamptz;
