# SPDX-License-Identifier: BSD-3-Clause
"""What a figure's gate can detect tonight: the smallest slowdown it would
call a regression 9 times in 10 at its own false-alarm level.

A gate cannot find a loss that the noise hides; it can say how large a
loss must be before it finds it.  Both rules judge ``d = ln(m_c) -
level`` (the log change of tonight's mean) with a standard error ``se``
and a t quantile, so a true loss ``delta`` (on the log scale) is found
with probability ``power`` when

* lookback rule (regression: the interval's end below 0 *and* the change
  beyond the tolerance): ``delta >= max(t_a se, -ln(1 - tol)) + t_p se``;
* interval rule (regression: the whole interval beyond the tolerance):
  ``delta >= -ln(1 - tol) + (t_a + t_p) se``;

with ``t_a`` the rule's one-sided quantile (its false-alarm level) and
``t_p`` the power quantile at the same degrees of freedom.  ``se^2`` is
what the rule's interval uses: the night-to-night noise of the history,
tonight's within-run spread over its repeats and the level's own
uncertainty.  With the level known exactly and ``t`` = ``z`` this is the
bound ``(z.99 + z.90) sqrt(tau^2 + cv^2 / R)`` of docs/gate-evidence.md.

A figure is *blind* when the slowdown it detects is larger than the loss
the gate promises not to miss (``lookback.detect``, twice the tolerance
by default: a loss of exactly the tolerance is found at most half the
time, since a regression needs the change beyond it); the repeats per
night that would reach it are given, or that none would (the night noise
alone hides it).
"""

import math
from dataclasses import dataclass

from pfsbench.core.fields import figure_role
from pfsbench.gate.judge import lookback
from pfsbench.gate.statistics.stats import smallest_count, t_quantile
from pfsbench.gate.statistics.values import expm1

#: The share of slowdowns of the reported size the gate finds.
POWER = 0.90

#: Repeats beyond which :func:`repeats_to_reach` stops searching.
MAX_REPEATS = 1000


def _loss_fraction(delta, direction):
    """A log-scale loss as the relative change in the figure's worse
    direction (positive): ``1 - e^-delta`` for higher-is-better, ``e^delta
    - 1`` for lower-is-better (the inverse of
    :func:`pfsbench.gate.judge.lookback.log_margin`)."""
    if direction == 'lower':
        return expm1(delta)

    return -expm1(-delta)


def smallest_log_loss(se, df, alpha, tolerance, direction,
                      rule='lookback', power=POWER):
    """The log-scale loss found with probability ``power`` (see the
    module's docstring)."""
    df = max(df, 1.0)
    t_a = t_quantile(1.0 - alpha, df)
    t_p = t_quantile(power, df)
    tol = lookback.log_margin(tolerance, direction)
    if rule == 'lookback':
        return max(t_a * se, tol) + t_p * se

    return tol + (t_a + t_p) * se


def repeats_to_reach(target, tau2, cv2, level_nights, df, alpha, tolerance,
                     direction, rule='lookback', power=POWER):
    """Repeats per night at which every night (the level's and tonight's)
    would detect ``target``, the spreads as measured.

    Returns:
        The smallest count (>= 2), ``MAX_REPEATS + 1`` if more are needed,
        or ``None`` if no count reaches it (the night-to-night noise, or
        the tolerance, alone is too large).
    """
    k = max(level_nights, 1)

    def found(repeats):
        night = tau2 + cv2 / repeats
        se = math.sqrt(night + night / k)
        return smallest_log_loss(se, df, alpha, tolerance, direction,
                                 rule, power) <= lookback.log_margin(target,
                                                             direction)

    if not found(math.inf):
        return None

    return smallest_count(found, MAX_REPEATS)


def sensitivity(se2, df, alpha, tolerance, target, direction, repeats,
                tau2, cv2, level_nights, rule='lookback', power=POWER):
    """A figure's sensitivity tonight, as the record keeps it.

    Args:
        se2: variance of tonight's log change as the rule judged it.
        df: its degrees of freedom (``None``: normal).
        alpha: the rule's one-sided false-alarm level.
        tolerance: the smallest change that matters.
        target: the loss the gate must find (``lookback.detect``).
        direction: ``'higher'`` or ``'lower'`` is better.
        repeats: tonight's samples.
        tau2: night-to-night variance (0 for the interval rule without
            a night floor).
        cv2: squared relative spread of one repeat.
        level_nights: nights (or baseline sessions) behind the level.
        rule: ``'lookback'`` or ``'interval'``.

    Returns:
        ``{'detects', 'target', 'power', 'alpha', 'blind', 'repeats',
        'repeats_needed'}``: ``detects`` the relative loss found with
        ``power`` (``None`` where no finite one is), ``repeats_needed``
        for a blind figure (``None``: no count reaches the target).
    """
    df = math.inf if df is None else df
    out = {'detects': None, 'target': target, 'power': power,
           'alpha': alpha, 'blind': True, 'repeats': repeats,
           'repeats_needed': None}
    if se2 is None or not math.isfinite(se2) or se2 < 0:
        return out

    # What :func:`at_level` needs to judge it again at another level.
    out['inputs'] = {'se2': se2, 'df': None if math.isinf(df) else df,
                     'tolerance': tolerance, 'direction': direction,
                     'tau2': tau2, 'cv2': cv2, 'level_nights': level_nights,
                     'rule': rule}

    delta = smallest_log_loss(math.sqrt(se2), df, alpha, tolerance,
                              direction, rule, power)
    detects = _loss_fraction(delta, direction)
    # A higher-is-better figure cannot lose more than all of it.
    out['detects'] = detects if detects < 1.0 or direction == 'lower' \
        else None
    out['blind'] = out['detects'] is None or detects > target
    if out['blind']:
        out['repeats_needed'] = repeats_to_reach(
            target, tau2, cv2, level_nights, df, alpha, tolerance,
            direction, rule, power)

    return out


def at_level(sens, alpha):
    """``sens`` (:func:`sensitivity`'s dict) at the one-sided level
    ``alpha`` where that is below its own (the night's false-alarm budget:
    what the figure can find after the night's correction), else
    ``sens`` itself."""
    if not sens or 'inputs' not in sens or alpha >= sens['alpha']:
        return sens

    given = sens['inputs']
    return sensitivity(given['se2'], given['df'], alpha, given['tolerance'],
                       sens['target'], given['direction'], sens['repeats'],
                       given['tau2'], given['cv2'], given['level_nights'],
                       given['rule'], sens['power'])


def label(sens):
    """``'detects >= 28 %'``, with the blind figure's remedy."""
    if sens is None:
        return ''

    found = ('detects no loss' if sens['detects'] is None
             else f'detects >= {sens["detects"]:.0%}')
    if not sens['blind']:
        return found

    need = sens['repeats_needed']
    if need is None:
        remedy = 'no repeat count would find it (the night-to-night noise)'
    elif need > MAX_REPEATS:
        remedy = (f'more than {MAX_REPEATS} repeats per night would find it '
                  '9 times in 10')
    else:
        remedy = f'about {need} repeats per night would find it 9 times in 10'

    return (f'{found}: cannot detect the loss it must find '
            f'({sens["target"]:.0%}, lookback.detect); {remedy}')


def short_label(sens):
    """The table cell: ``'>= 28 %'``, ``'>= 28 % blind'``."""
    if sens is None:
        return '-'

    cell = 'none' if sens['detects'] is None else f'>={sens["detects"]:.0%}'
    return cell + (' blind' if sens['blind'] else '')


def of_interval(iv, tolerance, target, direction, rule, tau2=0.0,
                level_nights=1):
    """:func:`sensitivity` of a verdict's interval: its standard error is
    read back from the interval's half-width on the log scale (the rule's
    t quantile at its degrees of freedom), so whatever the rule weighed
    (night noise, tonight's spread and repeats, the level's nights, a
    night floor) is in it.

    Args:
        iv: the :class:`~pfsbench.gate.statistics.stats.RatioInterval` judged.
        tolerance, target, direction, rule: as :func:`sensitivity`.
        tau2: night-to-night variance behind the interval (0: none).
        level_nights: nights (or baseline sessions) behind the level.

    Returns:
        :func:`sensitivity`'s dict, or ``None`` when the interval has no
        finite width (a change of -100 %).
    """
    if iv.low <= -1.0 or iv.change <= -1.0:
        return None

    d = math.log1p(iv.change)
    half = max(d - math.log1p(iv.low), math.log1p(iv.high) - d)
    df = math.inf if iv.df is None else iv.df
    t = t_quantile(0.5 + iv.confidence / 2.0, max(df, 1.0))
    se2 = (half / t) ** 2
    cv2 = max(iv.cv2_cur or 0.0, iv.cv2_base or 0.0)
    if rule == 'lookback':
        # The lookback interval keeps tonight's within-night variance of
        # its log mean (cv^2 / n) in cv2_cur.
        cv2 = (iv.cv2_cur or 0.0) * iv.n_cur

    return sensitivity(se2, df, (1.0 - iv.confidence) / 2.0, tolerance,
                       target, direction, iv.n_cur, tau2, cv2,
                       level_nights, rule)


#: Nights behind the level a plan assumes (a baseline of 5 nights).
PLAN_LEVEL_NIGHTS = 5


@dataclass(frozen=True)
class FigurePlan:
    """What one figure of a case needs to find a slowdown of ``target``."""

    var: str
    #: Repeats per night (``MAX_REPEATS + 1``: more than that), or
    #: ``None``: no count reaches it.
    repeats: int
    nights: int
    #: Night-to-night noise and one repeat's relative spread (CVs).
    tau: float
    cv: float


def figure_noise(nights_by_var, outlier_z):
    """``(var, tau2, cv2, df, nights)`` of each figure with at least 3
    nights whose mean is positive: the night-to-night variance beyond the
    repeats' spread (outlying nights left out, as the lookback rule does)
    with its degrees of freedom, and the pooled squared spread of one
    repeat."""
    for var, nights in nights_by_var.items():
        nights = [n for n in nights if n.mean > 0]
        kept, _ = lookback.drop_outliers(nights, outlier_z, clamp=True)
        noise = lookback.night_variance([kept]) if len(kept) >= 3 else None
        if noise is not None:
            tau2, df = noise
            yield var, tau2, lookback.pooled_cv2(kept) or 0.0, df, len(kept)


def plan_case(nights_by_var, target, alpha, outlier_z, power=POWER):
    """Repeats per night that make each figure of one case find a loss of
    ``target`` with ``power`` at ``alpha`` (one-sided), from its measured
    history: the night-to-night noise beyond the repeats' spread (outlying
    nights left out, as the lookback rule does) and the pooled spread of
    one repeat; the level as from :data:`PLAN_LEVEL_NIGHTS` nights.  The
    tolerance is left out: a site that wants ``target`` sets its
    tolerance below it.

    Args:
        nights_by_var: ``{var: [Moments, ...]}`` (oldest first; nights
            whose mean is not positive are left out).
        target: the relative loss to find (0.05).
        alpha: the gate's one-sided false-alarm level.
        outlier_z: the lookback rule's outlier limit.

    Returns:
        ``[FigurePlan, ...]`` of the figures with at least 3 nights, the
        hardest first (``None`` repeats first).
    """
    plans = []
    for var, tau2, cv2, df, nights in figure_noise(nights_by_var, outlier_z):
        # Both directions need the same margin on the log scale to first
        # order; the higher-is-better one is the larger.
        need = repeats_to_reach(target, tau2, cv2, PLAN_LEVEL_NIGHTS, df,
                                alpha, 0.0, 'higher', 'lookback', power)
        plans.append(FigurePlan(var, need, nights, math.sqrt(tau2),
                                math.sqrt(cv2)))

    return sorted(plans, key=lambda p: (p.repeats is not None,
                                        -(p.repeats or 0), p.var))


#: The noise a plan assumes for a case without 3 nights of history: nights
#: 3 % apart beyond their repeats, one repeat 5 % off its night's mean
#: (docs/nightly.md; the gate's own figures replace them once it has
#: nights).
DEFAULT_NIGHT_NOISE = 0.03
DEFAULT_REPEAT_NOISE = 0.05


def plan_detects(nights_by_var, repeats, alpha, outlier_z, power=POWER):
    """The smallest slowdown one case finds with ``power`` at ``alpha``
    (the night's budget: :func:`pfsbench.gate.judge.budget.plan_level`)
    when it runs ``repeats`` times a night, its level from
    :data:`PLAN_LEVEL_NIGHTS` nights (the tolerance left out, as in
    :func:`plan_case`): its least sensitive headline figure's (the
    diagnostic ones never page), from that figure's measured noise, or
    from :data:`DEFAULT_NIGHT_NOISE` and
    :data:`DEFAULT_REPEAT_NOISE` when no figure has 3 nights.

    Returns:
        ``(fraction, var)``: ``var`` the figure that sets it, ``None``
        when the default noise did.
    """
    headline = {var: nights for var, nights in nights_by_var.items()
                if figure_role(var) == 'headline'}
    noises = list(figure_noise(headline, outlier_z)) or [
        (None, DEFAULT_NIGHT_NOISE ** 2, DEFAULT_REPEAT_NOISE ** 2, math.inf,
         0)]
    worst = (0.0, None)
    for var, tau2, cv2, df, _ in noises:
        night = tau2 + cv2 / repeats
        se = math.sqrt(night + night / PLAN_LEVEL_NIGHTS)
        loss = _loss_fraction(smallest_log_loss(se, df, alpha, 0.0, 'higher',
                                                'lookback', power), 'higher')
        worst = max(worst, (loss, var), key=lambda w: w[0])
    return worst
