"""apicore.process_cache.BoundedMap: what a worker keeps between requests stays bounded."""

from apicore.process_cache import BoundedMap


def test_a_full_map_lets_the_oldest_half_go():
    kept = BoundedMap(4)
    for key in "abcd":
        kept.put(key, key.upper())

    kept.put("e", "E")

    assert list(kept) == ["c", "d", "e"]
    assert kept.get("a") is None and kept.get("e") == "E"
    assert len(kept) == 3


def test_forget_and_clear():
    kept = BoundedMap(10)
    kept.put("a", 1)
    kept.put("b", 2)

    kept.forget("a")
    kept.forget("missing")
    assert "a" not in kept and "b" in kept
    kept.clear()
    assert len(kept) == 0
