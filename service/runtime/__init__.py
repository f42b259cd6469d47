"""What every process needs to run: configuration, the embedded servers and JSON logs. It imports
none of the layers above it (the command line, the API, the workers, the application)."""
