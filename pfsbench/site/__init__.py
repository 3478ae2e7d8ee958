# SPDX-License-Identifier: BSD-3-Clause
"""What a site configures and owns: its configuration and its validation,
references, tool binaries and Spack, run directories, exclusive targets,
mounts and the extras recorded with each session.
"""
