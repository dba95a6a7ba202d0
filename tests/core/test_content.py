"""Profile maths for content-aware polling (smartreader.core.content)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartreader.core.content import (
    BoltzmannRate,
    ChannelProfile,
    FixedIdf,
    NoveltyFilter,
    SimilarityMatrix,
    Vocabulary,
    batch_cohesion,
    containment,
    cosine,
    filter_sightings,
    item_terms,
    novel_mask,
    overlap,
    overlaps,
    row_normalise,
    tokenize,
)
from smartreader.core.models import ItemSighting

WORDS = ["alpha", "beta", "gamma", "delta", "release", "bump", "fix", "docs", "parser", "cli"]
bags = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(Counter)
vectors = st.dictionaries(
    st.sampled_from(WORDS), st.floats(0.0, 100.0, allow_nan=False), max_size=len(WORDS)
)


def fixed_idf(items: list[Counter[str]]) -> FixedIdf:
    df: Counter[str] = Counter()
    for t in items:
        df.update(t.keys())
    return FixedIdf(df, len(items))


# ----------------------------------------------------------------- tokenizer


def test_tokenize_terms_and_pairs() -> None:
    bag = tokenize("Fix the parser: update dependency foo to v4.2.39")
    assert bag["parser"] == 1 and "the" not in bag
    assert "v0.0.0" in bag  # digit runs folded, so version bumps share terms
    assert bag["update dependency"] == 1  # adjacent kept words form a pair
    assert "39" not in bag and "0" not in bag


def test_tokenize_without_pairs_and_html() -> None:
    bag = tokenize("<p>Bundestag <b>beschließt</b> Gesetz</p>", pairs=False)
    assert set(bag) == {"bundestag", "beschließt", "gesetz"}


def test_version_bumps_are_similar() -> None:
    a = item_terms("chore(deps): update dependency foo to v1.2.3")
    b = item_terms("chore(deps): update dependency foo to v1.2.4")
    vocab = fixed_idf([a, b, item_terms("rewrite the scheduler")])
    assert cosine(vocab.weights(a), vocab.weights(b)) == pytest.approx(1.0)


# ---------------------------------------------------------------- similarity


@given(vectors, vectors)
def test_cosine_in_unit_interval_and_symmetric(a: dict[str, float], b: dict[str, float]) -> None:
    s = cosine(a, b)
    assert 0.0 <= s <= 1.0
    assert s == pytest.approx(cosine(b, a))


@given(vectors)
def test_cosine_self_is_one(a: dict[str, float]) -> None:
    assert cosine(a, a) == pytest.approx(1.0)


def test_cosine_edges() -> None:
    assert cosine({}, {}) == 1.0
    assert cosine({"a": 1.0}, {}) == 0.0
    assert cosine({"a": 1.0}, {"b": 1.0}) == 0.0


@given(vectors, vectors)
def test_containment_in_unit_interval(a: dict[str, float], b: dict[str, float]) -> None:
    assert 0.0 <= containment(a, b) <= 1.0


# -------------------------------------------------------------- profiles


def test_profile_window_slides() -> None:
    p = ChannelProfile(window=2)
    assert p.push(Counter(a=1)) is None
    p.push(Counter(b=1))
    assert p.push(Counter(a=1, c=2)) == Counter(a=1)
    assert p.tf == Counter(b=1, a=1, c=2)
    p.push(Counter(d=1))
    assert p.tf == Counter(a=1, c=2, d=1)  # b left; zero counts dropped
    with pytest.raises(ValueError):
        ChannelProfile(window=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(bags, min_size=1, max_size=30), st.integers(1, 6))
def test_online_cohesion_equals_batch(items: list[Counter[str]], window: int) -> None:
    vocab = fixed_idf(items)
    nf = NoveltyFilter(vocab, window)
    deltas = [nf.add(t).delta for t in items]
    batch = batch_cohesion(items, vocab, window)
    assert deltas == pytest.approx(batch, abs=1e-9)
    stats = batch[window:]  # items added to a full window
    assert nf.n == len(stats)
    if stats:
        assert nf.cohesion == pytest.approx(float(np.mean(stats)), abs=1e-9)  # Eq. 8 = Eq. 3
    if len(stats) > 1:
        assert nf.sigma == pytest.approx(float(np.std(stats, ddof=1)), abs=1e-7)  # Eq. 6


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(bags, min_size=1, max_size=5), min_size=1, max_size=8))
def test_online_cohesion_by_batches_equals_one_by_one(batches: list[list[Counter[str]]]) -> None:
    flat = [t for b in batches for t in b]
    vocab = fixed_idf(flat)
    a, b = NoveltyFilter(vocab, 4), NoveltyFilter(vocab, 4)
    for batch in batches:
        a.add_batch(batch)
    for t in flat:
        b.add(t)
    assert a.cohesion == pytest.approx(b.cohesion)
    assert a.sigma == pytest.approx(b.sigma)


@settings(max_examples=60, deadline=None)
@given(st.lists(bags, min_size=1, max_size=30), st.floats(-3, 3), st.floats(0, 3))
def test_filtering_monotone_in_beta(items: list[Counter[str]], beta: float, step: float) -> None:
    vocab = fixed_idf(items)
    lo = novel_mask(items, vocab, 5, beta)
    hi = novel_mask(items, vocab, 5, beta + step)
    assert all(h or not lo_ for lo_, h in zip(lo, hi, strict=True))  # novel(β) ⊆ novel(β')


NEWS = ["placement by weekly pattern", "budget cap per host", "missed items alert"]


def test_novelty_flags_repeats_and_keeps_news() -> None:
    bump = "chore(deps): update dependency {} to v1.{}.0"
    items = []
    for i in range(30):
        items.append(item_terms(bump.format("serde", i)))
        if i % 10 == 9:
            items.append(item_terms(f"scheduler {NEWS[i // 10]}"))
    vocab = fixed_idf(items)
    mask = novel_mask(items, vocab, 5, 0.0)
    news = [m for t, m in zip(items, mask, strict=True) if "scheduler" in t]
    bumps = [m for t, m in zip(items, mask, strict=True) if "scheduler" not in t]
    assert mask[0]  # the first item of a channel is novel
    assert all(news)
    assert sum(bumps[5:]) <= len(bumps[5:]) // 2


def test_dynamic_vocabulary_idf() -> None:
    v = Vocabulary()
    assert v.idf("x") == 1.0
    v.add(["a", "b"])
    v.add(["a"])
    assert v.idf("a") == 0.0  # in every item: no weight
    assert v.idf("b") == pytest.approx(math.log(2))
    assert v.idf("never") == pytest.approx(math.log(3))


# ------------------------------------------------------------- sightings


def test_filter_sightings_marks_only_non_novel_new_items() -> None:
    items = (
        ItemSighting("a", 3.0, True),
        ItemSighting("b", 2.0, True),
        ItemSighting("c", 1.0, False),
    )
    out = filter_sightings(items, {"a": True, "b": False, "c": False})
    assert [i.is_new for i in out] == [True, True, False]  # all-item rate unchanged
    assert [i.novel for i in out] == [True, False, True]  # old items are not judged
    assert [i.uid for i in out] == ["a", "b", "c"]  # every item kept (window fullness)
    assert [i.published for i in out] == [3.0, 2.0, 1.0]


def test_filter_sightings_judges_a_full_window_of_new_items_too() -> None:
    # every item new (some may have scrolled out unseen): the verdicts still apply;
    # the window stays whole and new for missed-item detection
    items = (ItemSighting("a", 2.0, True), ItemSighting("b", 1.0, True))
    out = filter_sightings(items, {"a": False})
    assert [i.novel for i in out] == [False, True]
    assert [i.is_new for i in out] == [True, True]


# ---------------------------------------------------------- rate learning


def test_boltzmann_rate_learns_the_observed_rate() -> None:
    r = BoltzmannRate(start=0.0, lam0=10.0)
    for k in range(1, 200):
        r.observe(k * 3600.0, 2.0)  # 2 items every hour
    assert r.rate == pytest.approx(2.0, rel=1e-3)
    assert r.alpha(0.0) == pytest.approx(0.1)
    assert r.alpha(100 * 3600.0) == pytest.approx(0.1 / math.e)


@given(st.lists(st.tuples(st.floats(1, 1e5), st.integers(0, 50)), max_size=30))
def test_boltzmann_rate_non_negative(steps: list[tuple[float, int]]) -> None:
    r = BoltzmannRate(start=0.0)
    t = 0.0
    for dt, n in steps:
        t += dt
        assert r.observe(t, n) >= 0.0


# ---------------------------------------------------- inter-feed similarity


def test_similarity_matrix_rows_normalised_and_refine() -> None:
    m = SimilarityMatrix(["a", "b", "c"])
    vecs = {"a": {"x": 1.0, "y": 1.0}, "b": {"x": 1.0, "y": 1.0}, "c": {"z": 1.0}}
    m.sample(vecs)
    m.sample(vecs)
    assert m.mean[0, 1] == pytest.approx(1.0) and m.mean[0, 2] == 0.0
    s = row_normalise(m.mean)
    assert s.sum(axis=1) == pytest.approx([1.0, 1.0, 1.0])
    lam = m.refine([4.0, 0.0, 1.0])
    assert lam == pytest.approx([2.0, 2.0, 1.0])  # a and b share; c keeps its own


@given(st.lists(st.lists(st.floats(0, 1), min_size=3, max_size=3), min_size=3, max_size=3))
def test_row_normalise_is_stochastic(rows: list[list[float]]) -> None:
    s = row_normalise(np.array(rows))
    assert s.sum(axis=1) == pytest.approx([1.0] * 3)
    assert (s >= 0).all()


def test_overlap_contained_and_similar() -> None:
    tech = dict.fromkeys(["apple", "google", "chips", "phones", "laptops", "cloud", "ai"], 1.0)
    circuits = {t: 1.0 for t in ["phones", "laptops", "chips"]}
    o = overlap(circuits, tech, "tech")
    assert o is not None and o.relation == "contained"
    assert "contained in Tech" in o.describe("Tech")
    back = overlap(tech, circuits, "circuits")
    assert back is not None and back.relation == "contains"
    assert overlap(tech, dict(tech), "twin") is not None
    assert overlap(tech, dict(tech), "twin").relation == "similar"  # type: ignore[union-attr]
    assert overlap(tech, {"football": 1.0}, "sport") is None
    found = overlaps({"tech": tech, "circuits": circuits, "sport": {"ball": 1.0}}, "circuits")
    assert [x.other for x in found] == ["tech"]
