"""Channel profiles and novelty detection for content-aware polling (Roitman et al.).

Pure functions and small stateful classes over plain text; no I/O, no Qt. The
update pipeline and the replay feed item text in; the scheduler never sees text,
only :class:`~smartreader.core.models.ItemSighting` flags (see
:func:`filter_sightings`).

* **Terms** (:func:`tokenize`): lower-cased words minus stop words, with digit runs
  folded to ``0`` (so "bump foo to v4.2.39" and "bump foo to v4.3.0" share terms),
  plus adjacent word pairs — a cheap stand-in for the paper's lexical affinities.
* **Profiles** (:class:`ChannelProfile`): tf-idf over a feed's last ``W`` items; tf
  is kept incrementally as the window slides, idf comes from a
  :class:`Vocabulary` shared by all feeds (items seen so far, as in §4.2.1).
* **Similarity** (:func:`cosine`, Eq. 1) and **cohesion** (Eq. 3): the mean, over
  the items added so far, of sim(P(W_{i−1}), P(W_i)); kept online as Eq. 8 with
  its spread (Eq. 6) by Welford's update.
* **Novelty** (Eq. 7): an item is *redundant* when its marginal similarity
  ``Δ = sim(P(W_{i−1}), P(W_i)) ≥ coh + β·σ`` (it barely moves the profile);
  otherwise it is novel. Larger β lets more items through.
* **Online rate** (:class:`BoltzmannRate`, Eq. 5): ``λ ← α_T·λ + (1−α_T)·n/ΔT`` with
  ``α_T = α₀·exp(−T/G)``; an alternative to the periodic estimator.
* **Inter-feed similarity** (:class:`SimilarityMatrix`, Eq. 9–10): the time average
  of the n×n profile similarity, row-normalised, refines a rate vector ``λ' = Sλ``;
  :func:`overlap` names a pair "A ⊂ B" (A's terms mostly inside B's) or "A ∼ B".
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from smartreader.core.models import ItemSighting

FloatArray = npt.NDArray[np.float64]
Terms = Counter[str]

DEFAULT_WINDOW = 20  # W, as in the paper's multi-channel experiments
# Default novelty threshold: the paper's multi-channel β = 0; no β did clearly better on
# dev-content (docs/benchmarks-content.md §2).
DEFAULT_BETA = 0.0

_WORD = re.compile(r"[^\W_]+(?:['.\-][^\W_]+)*")
_DIGITS = re.compile(r"\d+")
_TAGS = re.compile(r"<[^>]*>")
# Function words that carry no topic (English + German, for the feeds we test on).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "not",
        "no",
        "we",
        "you",
        "i",
        "he",
        "she",
        "they",
        "them",
        "our",
        "your",
        "their",
        "there",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einer",
        "eines",
        "einem",
        "einen",
        "und",
        "oder",
        "aber",
        "im",
        "in",
        "ist",
        "sind",
        "war",
        "zu",
        "zum",
        "zur",
        "mit",
        "von",
        "vom",
        "auf",
        "aus",
        "bei",
        "für",
        "fur",
        "nach",
        "über",
        "uber",
        "um",
        "wie",
        "als",
        "auch",
        "sich",
        "es",
        "er",
        "sie",
        "wir",
        "ihr",
        "nicht",
        "noch",
        "nur",
        "so",
        "dass",
        "daß",
        "wird",
        "werden",
        "hat",
        "haben",
    ]
)


def tokenize(text: str, *, pairs: bool = True) -> Terms:
    """Bag of terms of ``text``: words (≥ 2 chars, stop words out, digits folded to
    ``0``) and, with ``pairs``, each adjacent pair of kept words as ``"w1 w2"``."""
    words = []
    for w in _WORD.findall(_TAGS.sub(" ", text).lower()):
        w = _DIGITS.sub("0", w)
        # short words, stop words and bare numbers carry no topic
        if len(w) >= 2 and w not in STOP_WORDS and w.strip("0.-'"):
            words.append(w)
    bag: Terms = Counter(words)
    if pairs:
        bag.update(f"{a} {b}" for a, b in itertools.pairwise(words))
    return bag


def item_terms(title: str, summary: str = "", *, pairs: bool = True) -> Terms:
    """Terms of a feed item (title and description, as in §4.2.1)."""
    return tokenize(f"{title}\n{summary}", pairs=pairs)


class Vocabulary:
    """Document frequencies over every item seen so far, across all feeds (for idf).

    ``idf(t) = log(N / N_t)``; a term never seen gets ``log(N + 1)``, i.e. the
    weight of the rarest term.
    """

    def __init__(self) -> None:
        self.n = 0
        self.df: Counter[str] = Counter()

    def add(self, terms: Iterable[str]) -> None:
        self.n += 1
        self.df.update(set(terms))

    def idf(self, term: str) -> float:
        d = self.df.get(term, 0)
        if self.n == 0:
            return 1.0
        return math.log(self.n / d) if d else math.log(self.n + 1)

    def weights(self, tf: Mapping[str, float]) -> dict[str, float]:
        return {t: c * self.idf(t) for t, c in tf.items() if c}


class FixedIdf(Vocabulary):
    """A frozen idf table (e.g. measured once over a whole trace for evaluation)."""

    def __init__(self, df: Mapping[str, int], n: int) -> None:
        super().__init__()
        self.n = n
        self.df = Counter(df)
        self._cache: dict[str, float] = {}

    def add(self, terms: Iterable[str]) -> None:  # frozen: ignore
        return None

    def idf(self, term: str) -> float:
        v = self._cache.get(term)
        if v is None:
            v = self._cache[term] = super().idf(term)
        return v


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine similarity of two sparse non-negative vectors (Eq. 1), in [0, 1].

    Two empty vectors are identical (1.0); an empty and a non-empty one share
    nothing (0.0).
    """
    scale = max(max(a.values(), default=0.0), max(b.values(), default=0.0))
    if 0.0 < scale < 1e-100 or scale > 1e100:  # keep the squares representable
        a = {t: v / scale for t, v in a.items()}
        b = {t: v / scale for t, v in b.items()}
    na = math.fsum(v * v for v in a.values())
    nb = math.fsum(v * v for v in b.values())
    if na <= 0.0 and nb <= 0.0:
        return 1.0
    if na <= 0.0 or nb <= 0.0:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = math.fsum(v * b.get(t, 0.0) for t, v in a.items())
    den = math.sqrt(na) * math.sqrt(nb)
    return min(1.0, max(0.0, dot / den)) if den > 0 else 0.0


class ChannelProfile:
    """tf over the last ``window`` items, updated incrementally as the window slides."""

    def __init__(self, window: int = DEFAULT_WINDOW) -> None:
        if window < 1:
            raise ValueError("window must be ≥ 1")
        self.window = window
        self.items: deque[Terms] = deque()
        self.tf: Terms = Counter()

    def push(self, terms: Terms) -> Terms | None:
        """Add an item; return the item that left the window (or None)."""
        self.items.append(terms)
        self.tf.update(terms)
        if len(self.items) > self.window:
            old = self.items.popleft()
            self.tf.subtract(old)
            for t in old:
                if self.tf[t] <= 0:
                    del self.tf[t]
            return old
        return None

    def vector(self, vocab: Vocabulary) -> dict[str, float]:
        """The tf-idf profile P(C_W)."""
        return vocab.weights(self.tf)


def marginal_similarity(
    tf: Mapping[str, int],
    added: Mapping[str, int],
    removed: Mapping[str, int] | None,
    vocab: Vocabulary,
) -> float:
    """sim(P(W_{i−1}), P(W_i)) when ``added`` enters the window ``tf`` and ``removed``
    (if any) leaves it, without building the new profile: O(|tf| + |added|)."""
    delta: dict[str, float] = {}
    for t, c in added.items():
        delta[t] = delta.get(t, 0.0) + c
    if removed:
        for t, c in removed.items():
            delta[t] = delta.get(t, 0.0) - c
    nb = 0.0  # |before|²
    for t, c in tf.items():
        w = c * vocab.idf(t)
        nb += w * w
    cross = 0.0  # before · delta
    dd = 0.0  # |delta|²
    for t, d in delta.items():
        i = vocab.idf(t)
        cross += tf.get(t, 0) * i * i * d
        dd += d * d * i * i
    na = nb + 2.0 * cross + dd  # |after|²
    eps = 1e-9 * (nb + dd) + 1e-18  # cancellation leaves crumbs of an emptied window
    if nb <= eps and na <= eps:
        return 1.0
    if nb <= eps or na <= eps:
        return 0.0
    return min(1.0, max(0.0, (nb + cross) / math.sqrt(nb * na)))


@dataclass(frozen=True)
class NoveltyVerdict:
    delta: float  # marginal similarity sim(P(W_{i−1}), P(W_i))
    cohesion: float  # coh after this item (Eq. 8)
    sigma: float  # σ_coh after this item (Eq. 6)
    novel: bool


class NoveltyFilter:
    """One channel's profile, cohesion (Eq. 3 kept online as Eq. 8), σ (Eq. 6) and
    the novelty rule (Eq. 7) with threshold ``beta``.

    :meth:`add_batch` takes the items one fetch brought, oldest first: the cohesion
    is first updated with the whole batch (Eq. 8), then each item is judged against
    the updated ``coh + β·σ`` — the paper's order (Figure 4). :meth:`add` is the
    same for a batch of one.
    """

    def __init__(
        self, vocab: Vocabulary, window: int = DEFAULT_WINDOW, beta: float = DEFAULT_BETA
    ) -> None:
        self.vocab = vocab
        self.profile = ChannelProfile(window)
        self.beta = beta
        self.added = 0  # items added so far
        self.n = 0  # N: items in the cohesion statistics (added to a full window)
        self.cohesion = 0.0  # running mean of Δ (Eq. 8)
        self._m2 = 0.0  # Σ (Δ − mean)² (Welford)
        self.novel = 0  # items judged novel so far

    @property
    def sigma(self) -> float:
        """Eq. 6 (unbiased); 0 with fewer than two items."""
        return math.sqrt(self._m2 / (self.n - 1)) if self.n > 1 else 0.0

    @property
    def warming_up(self) -> bool:
        """True until the window has filled once. Items that fill it are novel by
        definition and stay out of the statistics: their Δ (0 for the first item,
        then rising) measures the empty start, not the channel, and would drag
        ``coh`` below every later Δ (then nothing would ever be novel)."""
        return self.added < self.profile.window

    def _push(self, terms: Terms) -> tuple[float, bool]:
        tf = self.profile.tf
        warm = self.warming_up
        leaving = None if warm else self.profile.items[0]
        self.vocab.add(terms)
        d = marginal_similarity(tf, terms, leaving, self.vocab)
        self.profile.push(terms)
        self.added += 1
        if warm:
            return d, True
        self.n += 1
        diff = d - self.cohesion
        self.cohesion += diff / self.n
        self._m2 += diff * (d - self.cohesion)
        return d, False

    def add_batch(self, batch: Sequence[Terms]) -> list[NoveltyVerdict]:
        pushed = [self._push(t) for t in batch]
        thr = self.cohesion + self.beta * self.sigma
        out = [
            NoveltyVerdict(d, self.cohesion, self.sigma, warm or is_novel(d, thr))
            for d, warm in pushed
        ]
        self.novel += sum(v.novel for v in out)
        return out

    def add(self, terms: Terms) -> NoveltyVerdict:
        return self.add_batch([terms])[0]

    def vector(self) -> dict[str, float]:
        return self.profile.vector(self.vocab)


def is_novel(delta: float, threshold: float) -> bool:
    """Eq. 7: redundant when Δ ≥ coh + β·σ. An item entering an empty profile
    (Δ = 0) is always novel."""
    return delta < threshold or delta <= 0.0


def batch_cohesion(items: Sequence[Terms], vocab: Vocabulary, window: int) -> list[float]:
    """Eq. 3 the slow way: rebuild both profiles for every item and take their
    cosine; returns every Δ_i (the cohesion is the mean of ``Δ[window:]``, the
    items added to a full window). For tests."""
    out: list[float] = []
    for i in range(len(items)):
        before = Counter[str]()
        for t in items[max(0, i - window) : i]:
            before.update(t)
        after = Counter[str]()
        for t in items[max(0, i + 1 - window) : i + 1]:
            after.update(t)
        out.append(cosine(vocab.weights(before), vocab.weights(after)))
    return out


def novel_mask(
    items: Sequence[Terms], vocab: Vocabulary, window: int = DEFAULT_WINDOW, beta: float = 0.0
) -> list[bool]:
    """Offline novelty (every item seen, one at a time) with a frozen ``vocab``."""
    nf = NoveltyFilter(vocab, window, beta)
    return [nf.add(t).novel for t in items]


def filter_sightings(
    items: Sequence[ItemSighting], novel: Mapping[str, bool]
) -> tuple[ItemSighting, ...]:
    """The sightings with each new item's novelty verdict attached (``novel``).

    The scheduler keeps two rates per feed: all items (the window fills with
    every item, so capacity floors and missed-item detection read that one, and
    ``is_new`` is left alone) and novel items (what the delay objective and the
    placement weigh). Items that scrolled out unseen are counted in the novel rate
    at the novel share of the ones that were seen.
    """
    return tuple(
        ItemSighting(i.uid, i.published, True, False)
        if i.is_new and not novel.get(i.uid, True)
        else i
        for i in items
    )


# --------------------------------------------------------------- rate learning


class BoltzmannRate:
    """Roitman et al. Eq. 5: ``λ(T) = α_T·λ(T_prev) + (1 − α_T)·|C_W'| / |W'|`` with
    ``α_T = α₀·exp(−T/G)``, T the time since the epoch start.

    Units: seconds in, items/hour out; ``g_hours`` is G in hours (the paper's
    α₀ = 0.1, G = 100). ``floor`` keeps a feed that went quiet probe-able.
    """

    def __init__(
        self,
        start: float,
        lam0: float = 1.0 / 24.0,
        alpha0: float = 0.1,
        g_hours: float = 100.0,
        floor: float = 1.0 / (24.0 * 7.0),
    ) -> None:
        self.start = start
        self.lam = lam0
        self.alpha0 = alpha0
        self.g = g_hours
        self.floor = floor
        self.prev: float | None = None

    def alpha(self, t: float) -> float:
        return self.alpha0 * math.exp(-max(0.0, t - self.start) / 3600.0 / self.g)

    def observe(self, t: float, n_events: float) -> float:
        """A probe at ``t`` captured ``n_events`` events since the previous probe."""
        if self.prev is not None and t > self.prev:
            a = self.alpha(t)
            local = n_events / ((t - self.prev) / 3600.0)
            self.lam = a * self.lam + (1.0 - a) * local
        self.prev = t
        return self.rate

    @property
    def rate(self) -> float:
        return max(self.lam, self.floor)


# ------------------------------------------------------- inter-feed similarity


def similarity_matrix(vectors: Sequence[Mapping[str, float]]) -> FloatArray:
    """n×n cosine similarities of profile vectors (1 on the diagonal)."""
    n = len(vectors)
    s = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            s[i, j] = s[j, i] = cosine(vectors[i], vectors[j])
    return s


def row_normalise(s: FloatArray) -> FloatArray:
    """Divide each row by its sum (Eq. 10's S_norm); an all-zero row becomes e_i."""
    out = np.array(s, dtype=np.float64)
    sums = out.sum(axis=1)
    for i, v in enumerate(sums):
        if v > 0:
            out[i] /= v
        else:
            out[i] = 0.0
            out[i, i] = 1.0
    return out


class SimilarityMatrix:
    """Eq. 9 kept online: the running mean of the n×n profile similarity, sampled
    whenever :meth:`sample` is called (e.g. after each probe or once an hour)."""

    def __init__(self, ids: Sequence[Hashable]) -> None:
        self.ids = list(ids)
        self.sum = np.zeros((len(self.ids), len(self.ids)))
        self.count = 0

    def sample(self, vectors: Mapping[Hashable, Mapping[str, float]]) -> None:
        self.sum += similarity_matrix([vectors.get(i, {}) for i in self.ids])
        self.count += 1

    @property
    def mean(self) -> FloatArray:
        if self.count == 0:
            return np.eye(len(self.ids))
        return self.sum / self.count

    def refine(self, rates: Sequence[float] | FloatArray, min_sim: float = 0.0) -> FloatArray:
        """Eq. 10: λ' = S_norm·λ. Similarities below ``min_sim`` count as 0, so
        unrelated feeds keep their own rate."""
        s = self.mean.copy()
        s[s < min_sim] = 0.0
        np.fill_diagonal(s, 1.0)
        return row_normalise(s) @ np.asarray(rates, dtype=np.float64)


def containment(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Share of A's profile weight on terms B's profile also has, in [0, 1]."""
    tot = math.fsum(a.values())
    if tot <= 0:
        return 0.0
    return min(1.0, math.fsum(v for t, v in a.items() if t in b) / tot)


@dataclass(frozen=True)
class Overlap:
    other: Hashable
    relation: str  # "contained" (this feed ⊂ other), "contains" (other ⊂ this), "similar"
    similarity: float
    containment: float  # share of this feed's profile inside the other's

    def describe(self, name: str) -> str:
        pct = round(100 * self.containment)
        if self.relation == "contained":
            return f"mostly contained in {name} ({pct}% of its terms)"
        if self.relation == "contains":
            return f"contains most of {name}"
        return f"overlaps with {name} (similarity {self.similarity:.2f})"


def overlap(
    a: Mapping[str, float],
    b: Mapping[str, float],
    other: Hashable,
    *,
    contained_at: float = 0.8,
    similar_at: float = 0.5,
) -> Overlap | None:
    """How feed A's profile relates to feed B's, or None when they are unrelated.

    "contained": ≥ ``contained_at`` of A's weight is on B's terms and A is the
    narrower of the two (the paper's Circuits ⊂ Technology); "contains" the
    reverse; "similar": cosine ≥ ``similar_at``.
    """
    if not a or not b:
        return None
    sim = cosine(a, b)
    ab, ba = containment(a, b), containment(b, a)
    if ab >= contained_at and ab > ba + 0.1:
        return Overlap(other, "contained", sim, ab)
    if ba >= contained_at and ba > ab + 0.1:
        return Overlap(other, "contains", sim, ab)
    if sim >= similar_at:
        return Overlap(other, "similar", sim, ab)
    return None


def overlaps(
    vectors: Mapping[Any, Mapping[str, float]], feed: Hashable, **kw: float
) -> list[Overlap]:
    """Every other feed ``feed`` overlaps with, strongest first."""
    a = vectors.get(feed, {})
    out = [o for fid, b in vectors.items() if fid != feed if (o := overlap(a, b, fid, **kw))]
    return sorted(out, key=lambda o: (-max(o.similarity, o.containment), str(o.other)))
