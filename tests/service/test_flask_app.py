"""The app's Flask: whether a hook or view is `async def` asked once per function, the same
answer as Flask's for plain functions, coroutine functions and methods bound anew each time."""

from __future__ import annotations

from typing import Any

from service.http.app import BancoFlask


def test_only_coroutine_functions_are_wrapped_however_often_asked():
    app = BancoFlask("check")
    wrapped: list[Any] = []

    def to_sync(func: Any) -> Any:
        wrapped.append(func)
        return func

    app.async_to_sync = to_sync  # type: ignore[method-assign]  # asgiref is not installed

    def plain() -> None:
        return None

    async def coroutine() -> None:
        return None

    class View:
        def post(self) -> None:
            return None

        async def get(self) -> None:
            return None

    for _ in range(3):
        assert app.ensure_sync(plain) is plain
        assert app.ensure_sync(coroutine) is coroutine
        bound = View().post  # a view's method is bound anew for each request
        assert app.ensure_sync(bound) is bound
        app.ensure_sync(View().get)
    assert wrapped[0::2] == [coroutine] * 3
    assert all(method.__func__ is View.get for method in wrapped[1::2]) and len(wrapped) == 6
    # Whatever is not a plain function goes to Flask's own answer, each time.
    assert app.ensure_sync(len) is len
