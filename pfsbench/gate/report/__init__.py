# SPDX-License-Identifier: BSD-3-Clause
"""One gate report record, rendered to several formats (IOR's
ior-output.c idea): ``text`` and ``markdown`` (tables), ``json`` (the record
itself), ``junit`` (XML for CI) and ``html`` (self-contained, with plots).

Every renderer takes the record built by
:func:`pfsbench.gate.judge.record.run_gate` and returns a string.
"""

from pfsbench.gate.report.formats import (FORMATS, load_record, render,
                                          render_all)

__all__ = ['FORMATS', 'load_record', 'render', 'render_all']
