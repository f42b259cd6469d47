"""The Flask service: configuration, app factory, REST resources and the `banco` command."""
