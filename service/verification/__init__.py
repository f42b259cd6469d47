"""Audits of recorded hands: replaying them, verifying them and sealing the log with digests."""
