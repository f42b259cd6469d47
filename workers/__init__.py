"""Background work on RQ: the Redis connection, queues, jobs and the worker."""
