# SPDX-License-Identifier: BSD-3-Clause
"""The gate's pure statistics: moments, intervals, change points, scaling.
"""
