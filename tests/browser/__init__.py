"""Browser tests: a real JupyterLab, Notebook 7 and Voila driven with headless Chromium."""
