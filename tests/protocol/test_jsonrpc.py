import msgspec
import orjson
import pytest

from manifold.protocol import jsonrpc as rpc


def test_raw_result_is_spliced_not_reencoded() -> None:
    msg = rpc.decode_incoming(b'{"jsonrpc":"2.0","id":7,"result":{"b":1,  "a":[1,2]}}')
    assert bytes(msg.result) == b'{"b":1,  "a":[1,2]}'
    out = orjson.loads(rpc.encode_raw_result("x", bytes(msg.result)))
    assert out == {"jsonrpc": "2.0", "id": "x", "result": {"b": 1, "a": [1, 2]}}


def test_error_frame_has_no_result() -> None:
    msg = rpc.decode_incoming(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}')
    assert not msg.result and msg.error["code"] == -32601


def test_garbage_raises() -> None:
    with pytest.raises(msgspec.DecodeError):
        rpc.decode_incoming(b"{nope")


@pytest.mark.parametrize(
    ("msg", "ok"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "x"}, True),
        ({"jsonrpc": "2.0", "method": "notifications/x"}, True),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, True),
        ({"jsonrpc": "2.0", "id": None, "method": "x"}, False),
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, False),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "x"}, False),
        ({"id": 1, "method": "x"}, False),
        ({"jsonrpc": "2.0", "id": 1, "method": 3}, False),
        ({"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]}, False),
        ([{"jsonrpc": "2.0", "id": 1, "method": "x"}], False),
        ("x", False),
        ({"jsonrpc": "2.0", "result": {}}, False),
    ],
)
def test_validate_request_shape(msg: object, ok: bool) -> None:
    assert (rpc.validate_request_shape(msg) is None) is ok
