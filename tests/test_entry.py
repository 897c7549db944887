"""The executable's guard for Ctrl-C while the CLI still loads."""

from __future__ import annotations

import sys
import types

import pytest

from manifold import entry


def _loading_fails_with(exc: BaseException) -> types.ModuleType:
    mod = types.ModuleType("manifold.cli")

    def __getattr__(name: str) -> object:
        raise exc

    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    return mod


def _wrapped_interrupt() -> RuntimeError:
    # What pydantic raises when Ctrl-C lands in a model class's creation (`__set_name__`).
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise RuntimeError("Error calling __set_name__ on 'PydanticDescriptorProxy'") from e
    except RuntimeError as r:
        return r


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), _wrapped_interrupt()])
def test_ctrl_c_while_loading_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], exc: BaseException
) -> None:
    monkeypatch.setitem(sys.modules, "manifold.cli", _loading_fails_with(exc))
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 1
    assert capsys.readouterr().err == "Aborted!\n"


def test_other_errors_while_loading_are_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "manifold.cli", _loading_fails_with(ValueError("broken")))
    with pytest.raises(ValueError, match="broken"):
        entry.main()
