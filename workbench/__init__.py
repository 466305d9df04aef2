"""Slot Workbench: slot co-allocation and job-flow scheduling in distributed computing."""

__version__ = "0.1.0"
