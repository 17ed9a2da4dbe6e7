"""Training program for the KPQA keyphrase weighter (source converters, labelling, trainer)."""
