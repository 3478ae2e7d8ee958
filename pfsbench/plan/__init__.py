# SPDX-License-Identifier: BSD-3-Clause
"""A nightly's plan: the cases it selects (`cases`, `selection`),
their estimate, budget and nights' noise (`estimate`, `budget`,
`nights`), the plan file, the driver partition and the plan
``pfsbench render nightly`` runs (`planfile`, `driver`, `nightly`).
"""
