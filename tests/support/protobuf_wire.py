"""Protobuf's wire format, read and written by hand for the tests that look inside
SentencePiece .model files (a ModelProto) without protoc-generated classes.

Wire types as https://protobuf.dev/programming-guides/encoding/ defines them:
0 varint, 1 64-bit, 2 length-delimited, 5 32-bit (3 and 4, groups, are not used by
sentencepiece_model.proto and are refused)."""


def varint(data, at):
    """The varint at data[at:], and the offset just past it."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def encode_varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if n == 0:
            return out


def fields(data):
    """The top-level fields of a message as (number, wire type, value, raw) tuples: value
    is an int for varints and the payload bytes otherwise; raw is the whole field, key
    included, so a message can be rebuilt from a subset of its fields."""
    at = 0
    while at < len(data):
        start = at
        tag, at = varint(data, at)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at:at + length], at + length
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value, data[start:at]


def length_delimited(number, payload):
    """A bytes field: its key, varint length and payload."""
    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload
