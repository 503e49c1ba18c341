"""vbench.units: human sizes <-> bytes, binary multiples."""

import pytest

from vbench.units import format_size, parse_size


@pytest.mark.parametrize(
    "text, expected",
    [
        ("64MB", 64 * 1024**2),
        ("64mb", 64 * 1024**2),
        (" 64 MiB ", 64 * 1024**2),
        ("1GiB", 1024**3),
        ("512K", 512 * 1024),
        ("2T", 2 * 1024**4),
        ("1.5KB", 1536),
        ("100", 100),
        ("100B", 100),
        (4096, 4096),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "MB", "banana", "64XB", "-1MB", "1.MB", "1e3", "64 M B"])
def test_parse_size_refuses_what_is_not_a_size(text):
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "0B"),
        (1, "1B"),
        (1023, "1023B"),
        (1024, "1KB"),
        (1536, "1536B"),
        (64 * 1024**2, "64MB"),
        (1024**3, "1GB"),
        (3 * 1024**4, "3TB"),
        (1024**5, "1024TB"),
    ],
)
def test_format_size_is_the_shortest_exact_spelling(n, text):
    assert format_size(n) == text


@pytest.mark.parametrize(
    "n", [0, 1, 100, 1536, 300_000 * 100, 16 * 1024**2, 32 * 1024**2 + 512, 5 * 1024**3, 7 * 1024**4]
)
def test_format_then_parse_round_trips(n):
    assert parse_size(format_size(n)) == n


@pytest.mark.parametrize("text", ["64MB", "1GB", "512KB", "3TB", "100B"])
def test_parse_then_format_round_trips(text):
    assert format_size(parse_size(text)) == text


@pytest.mark.parametrize("bad", [True, -5])
def test_parse_size_refuses_booleans_and_negative_numbers(bad):
    with pytest.raises(ValueError):
        parse_size(bad)
