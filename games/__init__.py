"""Pure rules engines, one module per game family, behind the contract of `games.contract`."""
