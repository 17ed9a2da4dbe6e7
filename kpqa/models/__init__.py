"""The torch side of kpqa, in one place: device and precision policy (:mod:`~kpqa.models.device`), quiet loading of
transformers models (:mod:`~kpqa.models.loader`), where backbone weights come from (:mod:`~kpqa.models.backbone`),
long-text windows (:mod:`~kpqa.models.windows`), piece -> token weight alignment (:mod:`~kpqa.models.alignment`),
the BERTScore encoder (:mod:`~kpqa.models.encoder`), the keyphrase tagger that training fits
(:mod:`~kpqa.models.tagger`), its checkpoint files (:mod:`~kpqa.models.checkpoint`) and KPW inference
(:mod:`~kpqa.models.weighter`). Nothing outside this package imports torch, except training (``kpqa.train``).
"""
