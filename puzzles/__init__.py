"""Puzzles: their rules, their file formats, and their translation to CSP models.

Puzzles know nothing of engines; engines know only ``puzzles.model``.
"""
