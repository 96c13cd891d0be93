"""Predict first, graded: the student's guess for a step's gradients, checked and scored.

- :mod:`.prediction`: parsing a guess, grading it against the engine's own step, the score;
- :mod:`.predict_mode`: :class:`~.predict_mode.PredictMode`: on or off, score, verdict.

Imports only the package's leaves (``arrays``, ``expressions``) and itself.
"""
