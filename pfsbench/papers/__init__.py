# SPDX-License-Identifier: BSD-3-Clause
"""The seeds' published figures as data, and a site's beside them.

One YAML file per seed (``seed001.yaml`` .. ``seed004.yaml`` here): every
figure the seed prints, one record each, with the point it belongs to
(Lustre version, client mode, NP, configuration...), the operation, the
value and unit as printed, and the exact source line (``line``, verbatim,
and ``lineno``).  Seed 000 publishes charts only (axis ticks, no values):
it has no file.

A site's figures come from the gate's own reading of the results
(:func:`pfsbench.gate.history.results.session_figures`): the latest session
holding each case, its mean over the usable repeats (those measured under
foreign load kept, and counted).  :data:`COMPARISONS` says, per
experiment, which checks, which parameters and which figure a paper record
matches.  Where a seed published the peak of a sweep (seed 001's
aggregates), the site's figure is its sweep's peak, with the count it
fell at.
"""

from pfsbench.papers.published import (HERE, NOTE_KEYS, RECORD_KEYS, SEEDS,
                                       Figure, Paper, experiments,
                                       figures_of, load)
from pfsbench.papers.site import (COMPARISONS, UNIT_SCALE, Comparison,
                                  reference, site_figures, site_means)

__all__ = ['COMPARISONS', 'Comparison', 'Figure', 'HERE', 'NOTE_KEYS',
           'Paper', 'RECORD_KEYS', 'SEEDS', 'UNIT_SCALE', 'experiments',
           'figures_of', 'load', 'reference', 'site_figures', 'site_means']
